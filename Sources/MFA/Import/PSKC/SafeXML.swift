import CXML2

/// An XML element as libmfa keeps it after parsing: copied out of
/// libxml2's tree, which is freed at once.
struct XMLElement: Sendable {
    /// The local name (without prefix).
    var name: String
    /// The namespace URI, if any.
    var namespace: String?
    /// The attributes, local names and values.
    var attributes: [(name: String, value: String)]
    /// The element's own text (its text and CDATA children, joined).
    var text: String
    var children: [XMLElement]
    /// The line it starts on.
    var line: Int

    /// The first child of this local name.
    func child(_ localName: String) -> XMLElement? {
        children.first { $0.name == localName }
    }

    /// Every child of this local name.
    func children(_ localName: String) -> [XMLElement] {
        children.filter { $0.name == localName }
    }

    /// The value of the attribute of this local name.
    func attribute(_ localName: String) -> String? {
        attributes.first { $0.name == localName }?.value
    }

    /// The text without the white space around it.
    var trimmedText: String {
        let bytes = Array(text.utf8)
        var start = 0
        var end = bytes.count
        let space: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        while start < end, space(bytes[start]) { start += 1 }
        while end > start, space(bytes[end - 1]) { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}

/// Reads untrusted XML through libxml2 with everything a key file never
/// needs turned off: no DTD is loaded or read, no entity is declared,
/// expanded or fetched, no network is reached, nothing is printed. A
/// document that tries any of it (a `<!DOCTYPE>`, an entity reference other
/// than the five predefined ones) is refused the moment the parser meets
/// it, before anything is expanded: XXE and billion-laughs files cost
/// nothing (`mfa_xml_guard_install`).
///
/// Before libxml2 sees it, the text must be UTF-8 (a UTF-16 or UTF-32 file
/// is refused by its first bytes), at most `maxBytes`, and no tag may carry
/// more than `maxAttributes` attributes: libxml2 2.9 checks each attribute
/// of a tag against the ones before it, so that count must stay small for
/// the parse to stay linear in the file.
enum SafeXML {
    /// The largest document read, in bytes (64 MiB: a PSKC file of a
    /// hundred thousand tokens is a few tens of megabytes).
    static let maxBytes = 64 << 20
    /// The most attributes one tag may carry.
    static let maxAttributes = 64

    /// Parses `bytes`.
    /// - Throws: `invalidPSKC` with the reason and the line.
    static func parse(_ bytes: [UInt8]) throws(MFAError) -> XMLElement {
        guard !bytes.isEmpty else { throw MFAError(.invalidPSKC, "pskc: the file is empty") }
        guard bytes.count <= maxBytes else {
            throw MFAError(.invalidPSKC, "pskc: the file is larger than \(maxBytes >> 20) MiB")
        }
        guard !bytes.prefix(4).contains(0), !bytes.starts(with: [0xFE, 0xFF]), !bytes.starts(with: [0xFF, 0xFE]) else {
            throw MFAError(.invalidPSKC, "pskc: the file is not UTF-8 (UTF-16 and UTF-32 are not read)")
        }
        if let line = crowdedTag(bytes) {
            throw MFAError(.invalidPSKC, "pskc: a tag on line \(line) has more than \(maxAttributes) attributes")
        }
        let library = try LibXML2.shared()
        guard let context = library.newContext() else { throw MFAError(.outOfMemory, "pskc: no parser context") }
        defer { library.freeContext(context) }
        var guardState = mfa_xml_guard(refused: 0, line: 0, stop: library.stop)
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
                            | XML_PARSE_NOCDATA.rawValue | XML_PARSE_BIG_LINES.rawValue)
        let document = withUnsafeMutablePointer(to: &guardState) { guardPointer -> xmlDocPtr? in
            context.pointee._private = UnsafeMutableRawPointer(guardPointer)
            mfa_xml_guard_install(context.pointee.sax)
            defer { context.pointee._private = nil }
            return bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    library.readMemory(context, $0, Int32(buffer.count), nil, nil, options)
                }
            }
        }
        defer { if let document { library.freeDocument(document) } }
        if guardState.refused != 0 {
            throw MFAError(.invalidPSKC, "pskc: the file declares a DTD or uses an entity (line \(guardState.line)): "
                + "libmfa reads no DTD, entity or external reference; a PSKC file needs none")
        }
        guard let document, let root = rootElement(document) else {
            throw MFAError(.invalidPSKC, "pskc: the file is not well-formed XML\(describe(library.lastError(context)))")
        }
        return convert(root, library, depth: 0)
    }

    /// The document's first element.
    private static func rootElement(_ document: xmlDocPtr) -> xmlNodePtr? {
        var node = document.pointee.children
        while let current = node {
            if current.pointee.type == XML_ELEMENT_NODE { return current }
            node = current.pointee.next
        }
        return nil
    }

    /// Copies an element and its subtree (libxml2 refuses nesting deeper than 256).
    private static func convert(_ node: xmlNodePtr, _ library: LibXML2, depth: Int) -> XMLElement {
        var element = XMLElement(name: text(node.pointee.name), namespace: node.pointee.ns.map { text($0.pointee.href) },
                                 attributes: [], text: "", children: [], line: Int(library.lineNumber(node)))
        var attribute = node.pointee.properties
        while let current = attribute {
            var value = ""
            var part = current.pointee.children
            while let piece = part {
                if let content = piece.pointee.content { value += String(cString: content) }
                part = piece.pointee.next
            }
            element.attributes.append((text(current.pointee.name), value))
            attribute = current.pointee.next
        }
        var child = node.pointee.children
        var pieces: [String] = []
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE where depth < 512:
                element.children.append(convert(current, library, depth: depth + 1))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content { pieces.append(String(cString: content)) }
            default:
                break
            }
            child = current.pointee.next
        }
        element.text = pieces.joined()
        return element
    }

    private static func text(_ pointer: UnsafePointer<xmlChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    /// libxml2's error, with its line, unless its message may quote a secret.
    private static func describe(_ error: UnsafeMutablePointer<xmlError>?) -> String {
        guard let error = error?.pointee else { return "" }
        let line = error.line > 0 ? " (line \(error.line))" : ""
        guard let raw = error.message else { return line }
        let message = String(cString: raw).split(whereSeparator: { $0 == "\n" }).joined(separator: " ")
        guard message.utf8.count <= 200, !ImportChecks.mayHoldSecret(message) else { return line }
        return line + ": " + message
    }

    /// The line of the first tag with more than `maxAttributes` attributes,
    /// or nil. A tag is `<` and a name character up to the `>` outside its
    /// quoted values; each `=` there is an attribute. Comments, processing
    /// instructions and declarations are passed over. One pass over the bytes.
    static func crowdedTag(_ bytes: [UInt8]) -> Int? {
        var line = 1
        var index = 0
        var inTag = false
        var quote: UInt8 = 0
        var count = 0
        var tagLine = 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A { line += 1 }
            if inTag {
                if quote != 0 {
                    if byte == quote { quote = 0 }
                } else if byte == 0x22 || byte == 0x27 {
                    quote = byte
                } else if byte == UInt8(ascii: "=") {
                    count += 1
                    if count > maxAttributes { return tagLine }
                } else if byte == UInt8(ascii: ">") {
                    inTag = false
                }
            } else if byte == UInt8(ascii: "<"), index + 1 < bytes.count {
                let next = bytes[index + 1]
                if next != UInt8(ascii: "!") && next != UInt8(ascii: "?") && next != UInt8(ascii: "/") {
                    inTag = true
                    count = 0
                    tagLine = line
                }
            }
            index += 1
        }
        return nil
    }
}
