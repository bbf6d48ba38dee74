import CXML2
import Glibc

/// libxml2's parser, loaded the first time a PSKC file is read.
///
/// libmfa.so does not link libxml2 (nor, through it, ICU): a program that
/// never imports a PSKC file never maps it. The first import loads
/// `libxml2.so.2` with `dlopen` (or the file `LIBMFA_LIBXML2` names, unless
/// the process runs in secure-execution mode: `ProcessEnvironment`) and
/// resolves the functions below into typed pointers (their types come from
/// libxml2's own headers through `CXML2`). It is done once per process; the
/// library stays loaded.
struct LibXML2: @unchecked Sendable {
    /// The library loaded unless `LIBMFA_LIBXML2` names another file.
    static let defaultPath = "libxml2.so.2"
    /// The environment variable that names another libxml2 file.
    static let environmentVariable = "LIBMFA_LIBXML2"

    let newContext: mfa_xmlNewParserCtxt_fn
    let freeContext: mfa_xmlFreeParserCtxt_fn
    let readMemory: mfa_xmlCtxtReadMemory_fn
    let freeDocument: mfa_xmlFreeDoc_fn
    let stop: mfa_xmlStopParser_fn
    let lineNumber: mfa_xmlGetLineNo_fn
    let lastError: mfa_xmlCtxtGetLastError_fn

    /// The process's libxml2, loaded on first use.
    /// - Throws: `invalidPSKC` naming the library if it cannot be loaded
    ///   (every later call gives the same answer).
    static func shared() throws(MFAError) -> LibXML2 {
        try loaded.get()
    }

    private static let loaded: Result<LibXML2, MFAError> = {
        let path = ProcessEnvironment.value(environmentVariable)
        do throws(MFAError) {
            return .success(try load(path: path ?? defaultPath))
        } catch {
            return .failure(error)
        }
    }()

    private static func load(path: String) throws(MFAError) -> LibXML2 {
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            throw MFAError(.invalidPSKC, "pskc: cannot load libxml2 \(path) to read the file (\(reason)); "
                + "install libxml2, or set \(environmentVariable) to its path")
        }
        func resolve<F>(_ name: String) throws(MFAError) -> F {
            guard let address = dlsym(handle, name) else {
                throw MFAError(.invalidPSKC, "pskc: libxml2 \(path) has no \(name)")
            }
            return unsafeBitCast(address, to: F.self)
        }
        let initialize: mfa_xmlInitParser_fn = try resolve("xmlInitParser")
        initialize()
        return LibXML2(newContext: try resolve("xmlNewParserCtxt"), freeContext: try resolve("xmlFreeParserCtxt"),
                       readMemory: try resolve("xmlCtxtReadMemory"), freeDocument: try resolve("xmlFreeDoc"),
                       stop: try resolve("xmlStopParser"), lineNumber: try resolve("xmlGetLineNo"),
                       lastError: try resolve("xmlCtxtGetLastError"))
    }
}
