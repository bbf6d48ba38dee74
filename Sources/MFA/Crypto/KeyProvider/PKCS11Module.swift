import CP11
import Glibc

/// A PKCS#11 module (an HSM vendor's library, SoftHSM2's
/// `libsofthsm2.so`), loaded with `dlopen` and initialised once per
/// process: libmfa links no PKCS#11 library. Modules stay loaded; each is
/// used under one lock, since key provider calls are rare (opening a
/// context, re-wrapping) and a module's login state is the process's.
final class PKCS11Module: @unchecked Sendable {
    /// The module's function list.
    let functions: UnsafeMutablePointer<CK_FUNCTION_LIST>
    /// The path it was loaded from, for messages.
    let path: String
    /// Held around every use of the module.
    let lock = Lock()

    private init(functions: UnsafeMutablePointer<CK_FUNCTION_LIST>, path: String) {
        self.functions = functions
        self.path = path
    }

    /// The modules loaded so far, by path.
    nonisolated(unsafe) private static var loaded: [String: PKCS11Module] = [:]
    private static let loadLock = Lock()

    /// The module at `path`, loaded and initialised on first use.
    /// - Throws: `keyProviderUnavailable` naming the path if it does not
    ///   load, has no `C_GetFunctionList`, or fails to initialise.
    static func shared(path: String) throws(MFAError) -> PKCS11Module {
        try loadLock.withLock { () throws(MFAError) -> PKCS11Module in
            if let module = loaded[path] { return module }
            let module = try load(path: path)
            loaded[path] = module
            return module
        }
    }

    private static func load(path: String) throws(MFAError) -> PKCS11Module {
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            throw MFAError(.keyProviderUnavailable, "pkcs11: cannot load the PKCS#11 module \(path) (\(reason))")
        }
        guard let symbol = dlsym(handle, "C_GetFunctionList") else {
            dlclose(handle)
            throw MFAError(.keyProviderUnavailable, "pkcs11: \(path) is not a PKCS#11 module (no C_GetFunctionList)")
        }
        let getList = unsafeBitCast(symbol, to: (@convention(c) (
            UnsafeMutablePointer<UnsafeMutablePointer<CK_FUNCTION_LIST>?>?) -> CK_RV).self)
        var list: UnsafeMutablePointer<CK_FUNCTION_LIST>?
        let status = getList(&list)
        guard status == PKCS11.ok, let list, let initialize = list.pointee.C_Initialize else {
            throw MFAError(.keyProviderUnavailable, "pkcs11: \(path): C_GetFunctionList failed (\(PKCS11.describe(status)))")
        }
        let module = PKCS11Module(functions: list, path: path)
        try module.initialize(initialize)
        return module
    }

    /// Calls `C_Initialize`, letting the module use the operating system's
    /// locks (several threads).
    private func initialize(_ initialize: CK_C_Initialize) throws(MFAError) {
        var arguments = CK_C_INITIALIZE_ARGS(CreateMutex: nil, DestroyMutex: nil, LockMutex: nil,
                                             UnlockMutex: nil, flags: PKCS11.osLockingOK, pReserved: nil)
        let initialized = initialize(&arguments)
        guard initialized == PKCS11.ok || initialized == PKCS11.alreadyInitialized else {
            throw MFAError(.keyProviderUnavailable,
                           "pkcs11: \(path): C_Initialize failed (\(PKCS11.describe(initialized)))")
        }
    }

    /// Finalizes and initializes the module again, so that it looks for its
    /// tokens afresh (a token added, or one a module could not read while
    /// another process wrote it). Call with `lock` held and no session open.
    /// - Throws: `keyProviderUnavailable` if it does not initialize.
    func reinitialize() throws(MFAError) {
        guard let initialize = functions.pointee.C_Initialize else { return }
        _ = functions.pointee.C_Finalize?(nil)
        try self.initialize(initialize)
    }
}

/// The PKCS#11 numbers libmfa uses (values from the OASIS PKCS#11 specification).
enum PKCS11 {
    static let ok: CK_RV = 0
    /// Returned in place of a call the module's function list lacks (CKR_FUNCTION_NOT_SUPPORTED).
    static let functionMissing: CK_RV = 0x54
    static let alreadyInitialized: CK_RV = 0x191
    static let pinIncorrect: CK_RV = 0xa0
    static let pinInvalid: CK_RV = 0xa1
    static let pinLenRange: CK_RV = 0xa2
    static let pinExpired: CK_RV = 0xa3
    static let pinLocked: CK_RV = 0xa4
    static let userAlreadyLoggedIn: CK_RV = 0x100
    static let userPINNotInitialized: CK_RV = 0x102
    static let osLockingOK: CK_FLAGS = 0x2
    static let serialSession: CK_FLAGS = 0x4
    static let tokenPresent: CK_FLAGS = 0x1
    static let userType: CK_USER_TYPE = 1
    static let classAttribute: CK_ATTRIBUTE_TYPE = 0x0
    static let labelAttribute: CK_ATTRIBUTE_TYPE = 0x3
    static let keyTypeAttribute: CK_ATTRIBUTE_TYPE = 0x100
    static let secretKeyClass: CK_OBJECT_CLASS = 0x4
    static let aesKeyType: CK_KEY_TYPE = 0x1f
    static let aesGCM: CK_MECHANISM_TYPE = 0x1087

    /// A return value as the specification names the common ones, else in hex.
    static func describe(_ status: CK_RV) -> String {
        let names: [CK_RV: String] = [
            0x5: "CKR_GENERAL_ERROR", 0x6: "CKR_FUNCTION_FAILED", 0x7: "CKR_ARGUMENTS_BAD",
            0x30: "CKR_DEVICE_ERROR", 0x32: "CKR_DEVICE_REMOVED", 0x40: "CKR_ENCRYPTED_DATA_INVALID",
            0x41: "CKR_ENCRYPTED_DATA_LEN_RANGE", 0x60: "CKR_KEY_HANDLE_INVALID",
            0x68: "CKR_KEY_FUNCTION_NOT_PERMITTED", 0x70: "CKR_MECHANISM_INVALID",
            0x71: "CKR_MECHANISM_PARAM_INVALID", 0xa0: "CKR_PIN_INCORRECT", 0xa1: "CKR_PIN_INVALID",
            0xa2: "CKR_PIN_LEN_RANGE", 0xa3: "CKR_PIN_EXPIRED", 0xa4: "CKR_PIN_LOCKED",
            0xb3: "CKR_SESSION_HANDLE_INVALID", 0xe0: "CKR_TOKEN_NOT_PRESENT",
            0x101: "CKR_USER_NOT_LOGGED_IN", 0x102: "CKR_USER_PIN_NOT_INITIALIZED",
            0x190: "CKR_CRYPTOKI_NOT_INITIALIZED", 0x54: "CKR_FUNCTION_NOT_SUPPORTED",
        ]
        return names[status] ?? "CKR 0x" + String(status, radix: 16)
    }
}
