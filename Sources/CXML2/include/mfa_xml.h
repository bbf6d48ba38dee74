/*
 * libxml2's types for libmfa, without linking libxml2: libmfa loads
 * libxml2.so.2 with dlopen the first time a PSKC file is read
 * (Sources/MFA/Import/PSKC/LibXML2.swift), and calls it through the function
 * pointer types below, taken from libxml2's own headers (Debian's
 * libxml2-dev; include/libxml points at them) so that they cannot drift.
 *
 * mfa_xml_guard_install() makes a parser refuse what a PSKC file never
 * needs and an attacker would use: a document type declaration (and with it
 * every DTD, external entity and entity expansion: XXE, billion laughs), an
 * entity declaration, and a reference to any entity but the five XML
 * predefines. The first such thing stops the parser on the spot.
 */
#ifndef MFA_CXML2_SHIM_H
#define MFA_CXML2_SHIM_H

/* Debian builds libxml2 with ICU, and encoding.h then includes ICU's
 * headers, whose types clash with Foundation's copy of ICU in any Swift
 * module that sees both. libmfa never touches an encoding handler (the one
 * struct ICU changes; the parser context holds it by pointer only), so ICU
 * is left out of this view of the headers. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#define MFA_XML_FN(name) typedef __typeof__(name) *mfa_##name##_fn;
MFA_XML_FN(xmlInitParser)
MFA_XML_FN(xmlNewParserCtxt)
MFA_XML_FN(xmlFreeParserCtxt)
MFA_XML_FN(xmlCtxtReadMemory)
MFA_XML_FN(xmlFreeDoc)
MFA_XML_FN(xmlStopParser)
MFA_XML_FN(xmlGetLineNo)
MFA_XML_FN(xmlCtxtGetLastError)
#undef MFA_XML_FN

/** What a guarded parse saw: set by the guard's callbacks (through the parser's _private). */
typedef struct mfa_xml_guard {
    /** 1 once the document tried a DTD, an entity declaration or an entity reference. */
    int refused;
    /** The line where it did. */
    int line;
    /** libxml2's xmlStopParser, called to stop at once. */
    mfa_xmlStopParser_fn stop;
} mfa_xml_guard;

/** Points `sax`'s DTD and entity callbacks at the guard's, which refuse and stop. */
void mfa_xml_guard_install(xmlSAXHandler *sax);

#endif
