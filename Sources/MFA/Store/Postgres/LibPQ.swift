import CPQ
import Glibc

/// libpq, loaded when the first `postgres://` store is opened.
///
/// libmfa.so does not link libpq: a program that only uses SQLite never
/// maps it (nor the Kerberos, LDAP and TLS libraries it pulls in). The first
/// `PostgresDatabase` loads `libpq.so.5` with `dlopen`, or the file
/// `LIBMFA_LIBPQ` names (ignored in a secure-execution process, which also
/// keeps libpq from its own variables: `PostgresSecureExecution`), and resolves every function the store calls into a
/// typed pointer (the types come from libpq-fe.h through `CPQ`). It is done
/// once per process, under a lock; the library stays loaded.
package struct LibPQ: @unchecked Sendable {
    /// The library loaded unless `LIBMFA_LIBPQ` names another file.
    package static let defaultPath = "libpq.so.5"
    /// The environment variable that names another libpq file.
    package static let environmentVariable = "LIBMFA_LIBPQ"

    let connectStartParams: mfa_PQconnectStartParams_fn
    let connectPoll: mfa_PQconnectPoll_fn
    let status: mfa_PQstatus_fn
    let transactionStatus: mfa_PQtransactionStatus_fn
    let errorMessage: mfa_PQerrorMessage_fn
    let socket: mfa_PQsocket_fn
    let finish: mfa_PQfinish_fn
    let setNonblocking: mfa_PQsetnonblocking_fn
    let setNoticeProcessor: mfa_PQsetNoticeProcessor_fn
    let conninfo: mfa_PQconninfo_fn
    let conninfoFree: mfa_PQconninfoFree_fn
    let parameterStatus: mfa_PQparameterStatus_fn
    let sendQuery: mfa_PQsendQuery_fn
    let sendPrepare: mfa_PQsendPrepare_fn
    let sendQueryPrepared: mfa_PQsendQueryPrepared_fn
    let flush: mfa_PQflush_fn
    let consumeInput: mfa_PQconsumeInput_fn
    let isBusy: mfa_PQisBusy_fn
    let getResult: mfa_PQgetResult_fn
    let resultStatus: mfa_PQresultStatus_fn
    let resultErrorMessage: mfa_PQresultErrorMessage_fn
    let resultErrorField: mfa_PQresultErrorField_fn
    let sendQueryParams: mfa_PQsendQueryParams_fn
    let ntuples: mfa_PQntuples_fn
    let nfields: mfa_PQnfields_fn
    let ftype: mfa_PQftype_fn
    let getisnull: mfa_PQgetisnull_fn
    let getvalue: mfa_PQgetvalue_fn
    let cmdTuples: mfa_PQcmdTuples_fn
    let clear: mfa_PQclear_fn

    /// The process's libpq, loaded on first use.
    /// - Throws: `storageError` naming the library if it cannot be loaded
    ///   (every later call gives the same answer).
    package static func shared() throws(MFAError) -> LibPQ {
        try loaded.get()
    }

    /// Loaded once, the first time a store asks (Swift runs a global's
    /// initializer exactly once, whatever the threads).
    private static let loaded: Result<LibPQ, MFAError> = {
        let path = ProcessEnvironment.value(environmentVariable)
        if ProcessEnvironment.isSecureExecution { PostgresSecureExecution.clearEnvironment() }
        do throws(MFAError) {
            return .success(try load(path: path ?? defaultPath))
        } catch {
            return .failure(error)
        }
    }()

    /// Loads the libpq at `path` (a file path, or a name the dynamic linker
    /// looks up) and resolves its functions.
    /// - Throws: `storageError` naming `path` if it cannot be loaded or lacks a function.
    package static func load(path: String) throws(MFAError) -> LibPQ {
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            throw MFAError(.storageError, "postgres: cannot load the PostgreSQL client library \(path) (\(reason)); "
                + "install libpq5, or set \(environmentVariable) to the path of libpq.so.5")
        }
        let symbols = Symbols(handle: handle, path: path)
        return LibPQ(
            connectStartParams: try symbols.resolve("PQconnectStartParams"),
            connectPoll: try symbols.resolve("PQconnectPoll"),
            status: try symbols.resolve("PQstatus"),
            transactionStatus: try symbols.resolve("PQtransactionStatus"),
            errorMessage: try symbols.resolve("PQerrorMessage"),
            socket: try symbols.resolve("PQsocket"),
            finish: try symbols.resolve("PQfinish"),
            setNonblocking: try symbols.resolve("PQsetnonblocking"),
            setNoticeProcessor: try symbols.resolve("PQsetNoticeProcessor"),
            conninfo: try symbols.resolve("PQconninfo"),
            conninfoFree: try symbols.resolve("PQconninfoFree"),
            parameterStatus: try symbols.resolve("PQparameterStatus"),
            sendQuery: try symbols.resolve("PQsendQuery"),
            sendPrepare: try symbols.resolve("PQsendPrepare"),
            sendQueryPrepared: try symbols.resolve("PQsendQueryPrepared"),
            flush: try symbols.resolve("PQflush"),
            consumeInput: try symbols.resolve("PQconsumeInput"),
            isBusy: try symbols.resolve("PQisBusy"),
            getResult: try symbols.resolve("PQgetResult"),
            resultStatus: try symbols.resolve("PQresultStatus"),
            resultErrorMessage: try symbols.resolve("PQresultErrorMessage"),
            resultErrorField: try symbols.resolve("PQresultErrorField"),
            sendQueryParams: try symbols.resolve("PQsendQueryParams"),
            ntuples: try symbols.resolve("PQntuples"),
            nfields: try symbols.resolve("PQnfields"),
            ftype: try symbols.resolve("PQftype"),
            getisnull: try symbols.resolve("PQgetisnull"),
            getvalue: try symbols.resolve("PQgetvalue"),
            cmdTuples: try symbols.resolve("PQcmdTuples"),
            clear: try symbols.resolve("PQclear"))
    }

    /// Looks functions up in one loaded library.
    private struct Symbols {
        let handle: UnsafeMutableRawPointer
        let path: String

        /// The function `name` as the pointer type `F`.
        func resolve<F>(_ name: String) throws(MFAError) -> F {
            guard let address = dlsym(handle, name) else {
                throw MFAError(.storageError, "postgres: the PostgreSQL client library \(path) has no \(name)")
            }
            return unsafeBitCast(address, to: F.self)
        }
    }
}
