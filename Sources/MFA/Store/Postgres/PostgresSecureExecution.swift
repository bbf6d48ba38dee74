import Glibc

/// What a secure-execution process (`ProcessEnvironment.isSecureExecution`:
/// `sudo` and `su`, where the PAM module runs) keeps libpq from reading.
///
/// libpq reads its `PG*` variables with `getenv`, not `secure_getenv`, and
/// finds `.pgpass`, `.pg_service.conf` and the client's certificates under
/// `$HOME`: a caller of a setuid program could point it at another server
/// (`PGHOSTADDR`, `PGSERVICE`), at certificates of their own, or at a
/// password file. So in such a process, before libpq is loaded, libmfa
/// takes every `PG*` variable out of the process environment (as the
/// dynamic loader does with `LD_*`), names the effective user's own
/// service file, and gives libpq the effective user's own password and
/// certificate files unless the store URL names them.
enum PostgresSecureExecution {
    /// Takes the caller's `PG*` variables out of the environment and names
    /// the effective user's own service file. Runs once, before libpq is loaded.
    static func clearEnvironment() {
        var names: [String] = []
        let start: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ // NULL after clearenv()
        var entry = start
        while let pointer = entry?.pointee {
            let text = String(cString: pointer)
            if text.hasPrefix("PG"), let equals = text.firstIndex(of: "=") {
                names.append(String(text[..<equals]))
            }
            entry = entry.map { $0 + 1 }
        }
        for name in names { unsetenv(name) }
        if let home = effectiveHome { setenv("PGSERVICEFILE", home + "/.pg_service.conf", 1) }
    }

    /// libpq's default client files, under the effective user's home rather
    /// than `$HOME`: put before the URL, which overrides them.
    static var ownFiles: [(keyword: String, value: String)] {
        guard let home = effectiveHome else { return [] }
        return [("passfile", home + "/.pgpass"),
                ("sslcert", home + "/.postgresql/postgresql.crt"),
                ("sslkey", home + "/.postgresql/postgresql.key"),
                ("sslrootcert", home + "/.postgresql/root.crt"),
                ("sslcrl", home + "/.postgresql/root.crl")].map { (keyword: $0.0, value: $0.1) }
    }

    /// The effective user's home directory from the password database, or nil.
    private static var effectiveHome: String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        let status = getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result)
        guard status == 0, result != nil, let directory = entry.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.isEmpty ? nil : home
    }
}
