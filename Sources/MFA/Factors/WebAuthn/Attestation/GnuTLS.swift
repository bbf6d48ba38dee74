import CGnuTLS
import Glibc

/// GnuTLS's X.509 functions, loaded the first time an attestation carries a
/// certificate.
///
/// libmfa.so does not link GnuTLS: a program that never sees an attestation
/// certificate (most: browsers send `none` unless asked) never maps it. The
/// first packed or fido-u2f statement with `x5c` loads `libgnutls.so.30`
/// with `dlopen` (or the file `LIBMFA_GNUTLS` names, unless the process
/// runs in secure-execution mode: `ProcessEnvironment`) and resolves the
/// functions below into typed pointers (their types come from GnuTLS's own
/// headers through `CGnuTLS`). It is done once per process; the library
/// stays loaded.
struct GnuTLS: @unchecked Sendable {
    /// The library loaded unless `LIBMFA_GNUTLS` names another file.
    static let defaultPath = "libgnutls.so.30"
    /// The environment variable that names another GnuTLS file.
    static let environmentVariable = "LIBMFA_GNUTLS"

    let crtInit: mfa_gnutls_x509_crt_init_fn
    let crtDeinit: mfa_gnutls_x509_crt_deinit_fn
    let crtImport: mfa_gnutls_x509_crt_import_fn
    let crtVersion: mfa_gnutls_x509_crt_get_version_fn
    let crtPKAlgorithm: mfa_gnutls_x509_crt_get_pk_algorithm_fn
    let crtECCRaw: mfa_gnutls_x509_crt_get_pk_ecc_raw_fn
    let crtRSARaw: mfa_gnutls_x509_crt_get_pk_rsa_raw_fn
    let crtDNByOID: mfa_gnutls_x509_crt_get_dn_by_oid_fn
    let crtBasicConstraints: mfa_gnutls_x509_crt_get_basic_constraints_fn
    let crtExtensionByOID: mfa_gnutls_x509_crt_get_extension_by_oid_fn
    let crtActivation: mfa_gnutls_x509_crt_get_activation_time_fn
    let crtExpiration: mfa_gnutls_x509_crt_get_expiration_time_fn
    let trustListInit: mfa_gnutls_x509_trust_list_init_fn
    let trustListDeinit: mfa_gnutls_x509_trust_list_deinit_fn
    let trustListAddMem: mfa_gnutls_x509_trust_list_add_trust_mem_fn
    let trustListVerify: mfa_gnutls_x509_trust_list_verify_crt2_fn
    /// GnuTLS's deallocator (a variable in the library), for the data it returns.
    let free: gnutls_free_function

    /// The process's GnuTLS, loaded on first use.
    /// - Throws: `crypto` naming the library if it cannot be loaded (every
    ///   later call gives the same answer).
    static func shared() throws(MFAError) -> GnuTLS {
        try loaded.get()
    }

    private static let loaded: Result<GnuTLS, MFAError> = {
        let path = ProcessEnvironment.value(environmentVariable)
        do throws(MFAError) {
            return .success(try load(path: path ?? defaultPath))
        } catch {
            return .failure(error)
        }
    }()

    private static func load(path: String) throws(MFAError) -> GnuTLS {
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            throw MFAError(.crypto, "webauthn: cannot load GnuTLS \(path) to read an attestation certificate "
                + "(\(reason)); install libgnutls30, or set \(environmentVariable) to its path")
        }
        func resolve<F>(_ name: String) throws(MFAError) -> F {
            guard let address = dlsym(handle, name) else {
                throw MFAError(.crypto, "webauthn: GnuTLS \(path) has no \(name)")
            }
            return unsafeBitCast(address, to: F.self)
        }
        let freeVariable: UnsafeMutablePointer<gnutls_free_function?> = try resolve("gnutls_free")
        guard let free = freeVariable.pointee else { throw MFAError(.crypto, "webauthn: GnuTLS has no deallocator") }
        return GnuTLS(
            crtInit: try resolve("gnutls_x509_crt_init"),
            crtDeinit: try resolve("gnutls_x509_crt_deinit"),
            crtImport: try resolve("gnutls_x509_crt_import"),
            crtVersion: try resolve("gnutls_x509_crt_get_version"),
            crtPKAlgorithm: try resolve("gnutls_x509_crt_get_pk_algorithm"),
            crtECCRaw: try resolve("gnutls_x509_crt_get_pk_ecc_raw"),
            crtRSARaw: try resolve("gnutls_x509_crt_get_pk_rsa_raw"),
            crtDNByOID: try resolve("gnutls_x509_crt_get_dn_by_oid"),
            crtBasicConstraints: try resolve("gnutls_x509_crt_get_basic_constraints"),
            crtExtensionByOID: try resolve("gnutls_x509_crt_get_extension_by_oid"),
            crtActivation: try resolve("gnutls_x509_crt_get_activation_time"),
            crtExpiration: try resolve("gnutls_x509_crt_get_expiration_time"),
            trustListInit: try resolve("gnutls_x509_trust_list_init"),
            trustListDeinit: try resolve("gnutls_x509_trust_list_deinit"),
            trustListAddMem: try resolve("gnutls_x509_trust_list_add_trust_mem"),
            trustListVerify: try resolve("gnutls_x509_trust_list_verify_crt2"),
            free: free)
    }
}
