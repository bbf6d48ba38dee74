/* mfa_xml.c: the guard of mfa_xml.h, the callbacks libxml2 calls when a
 * document reaches for a DTD or an entity. They touch no libxml2 function
 * but the xmlStopParser they are given. */
#include "mfa_xml.h"

/* Records the refusal and stops the parser. */
static void refuse(void *ctx) {
    xmlParserCtxtPtr parser = ctx;
    if (!parser) return;
    mfa_xml_guard *guard = parser->_private;
    if (!guard) return;
    if (!guard->refused) {
        guard->refused = 1;
        guard->line = parser->input ? parser->input->line : 0;
    }
    if (guard->stop) guard->stop(parser);
}

static void on_subset(void *ctx, const xmlChar *name, const xmlChar *external_id, const xmlChar *system_id) {
    (void)name;
    (void)external_id;
    (void)system_id;
    refuse(ctx);
}

static void on_entity_decl(void *ctx, const xmlChar *name, int type, const xmlChar *public_id,
                           const xmlChar *system_id, xmlChar *content) {
    (void)name;
    (void)type;
    (void)public_id;
    (void)system_id;
    (void)content;
    refuse(ctx);
}

static xmlEntityPtr on_get_entity(void *ctx, const xmlChar *name) {
    (void)name;
    refuse(ctx);
    return NULL;
}

static xmlParserInputPtr on_resolve_entity(void *ctx, const xmlChar *public_id, const xmlChar *system_id) {
    (void)public_id;
    (void)system_id;
    refuse(ctx);
    return NULL;
}

void mfa_xml_guard_install(xmlSAXHandler *sax) {
    if (!sax) return;
    sax->internalSubset = on_subset;
    sax->externalSubset = on_subset;
    sax->entityDecl = on_entity_decl;
    sax->getEntity = on_get_entity;
    sax->getParameterEntity = on_get_entity;
    sax->resolveEntity = on_resolve_entity;
}
