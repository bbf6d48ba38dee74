#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import MFA

/// `mfactl audit tail|search|verify|purge`: the audit trail the store keeps.
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "Read, verify and purge the audit trail the store keeps.",
        discussion: """
            With the project configuration's "auditTrail": {"store": true} (mfactl config update \
            '{"auditTrail":{"store":true}}'), every audit event is stored in the transaction of what it \
            records, in the chain of the process that wrote it, MACed with a key derived from the \
            master key and chained to the event before it. Without it, events only reach the host's \
            audit callback, and these commands say so (exit 69).
            """,
        subcommands: [Tail.self, Search.self, Verify.self, Purge.self])

    struct Tail: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the latest stored events; with --follow, go on printing new ones.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @Option(name: [.customShort("n"), .long], help: "How many of the latest events to print first (0 to 10000).")
        var lines = 20
        @Flag(name: .shortAndLong, help: "Keep printing events as they are stored (Ctrl-C ends).")
        var follow = false
        @Option(help: "With --follow, seconds between two looks at the store (1 to 3600).")
        var interval = 1

        func run() throws {
            try running {
                guard (0...AuditQuery.maxLimit).contains(lines) else {
                    throw Failure("--lines must be 0 to \(AuditQuery.maxLimit)", status: ExitStatus.usage)
                }
                guard (1...3600).contains(interval) else {
                    throw Failure("--interval must be 1 to 3600", status: ExitStatus.usage)
                }
                let context = try store.open()
                try AuditCommand.requireTrail(context)
                let printer = AuditPrinter(json: output.json)
                // Where each chain stands: what is printed from now on comes after it.
                var seen: [String: Int64] = [:]
                for head in try context.auditChains() { seen[head.chain] = head.headSeq }
                if lines > 0 {
                    let latest = try context.auditRecords(AuditQuery(limit: lines, latest: true))
                    printer.print(latest)
                    for record in latest where record.seq > seen[record.chain] ?? 0 { seen[record.chain] = record.seq }
                }
                guard follow else { return }
                Interrupt.install()
                while !Interrupt.isRequested {
                    var fresh: [AuditRecord] = []
                    for head in try context.auditChains() where head.headSeq > seen[head.chain] ?? 0 {
                        let after = seen[head.chain] ?? 0
                        let records = try context.auditRecords(AuditQuery(chain: head.chain, afterSeq: after,
                                                                          limit: AuditQuery.maxLimit))
                        fresh += records
                        seen[head.chain] = records.last?.seq ?? after
                    }
                    printer.print(fresh.sorted { ($0.time, $0.chain, $0.seq) < ($1.time, $1.chain, $1.seq) })
                    var left = interval * 10
                    while left > 0, !Interrupt.isRequested {
                        usleep(100_000)
                        left -= 1
                    }
                }
            }
        }
    }

    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the stored events that match, oldest first.",
            discussion: """
                Times are Unix seconds, a UTC date or date and time (2026-11-29, 2026-11-29T08:30:00Z), \
                or a time before now (90s, 15m, 2h, 7d).
                """)
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @Option(help: ArgumentHelp("Only events about this user.", valueName: "uid")) var user: String?
        @Option(help: ArgumentHelp("Only this tenant's events.", valueName: "tenant")) var tenant: String?
        @Flag(help: "Only the project's events (no tenant).") var project = false
        @Option(help: ArgumentHelp("Only events at or after this time.", valueName: "time")) var since: String?
        @Option(help: ArgumentHelp("Only events before this time.", valueName: "time")) var until: String?
        @Option(help: ArgumentHelp("Only events of this kind (SIGN_IN_FAILURE, sign-in-failure, ...).",
                                   valueName: "kind"))
        var kind: String?
        @Option(help: ArgumentHelp("Only this chain's events.", valueName: "chain")) var chain: String?
        @Option(help: "At most this many events (1 to 1000000).") var limit = 1000

        func run() throws {
            try running {
                guard tenant == nil || !project else {
                    throw Failure("give --tenant or --project, not both", status: ExitStatus.usage)
                }
                guard (1...1_000_000).contains(limit) else {
                    throw Failure("--limit must be 1 to 1000000", status: ExitStatus.usage)
                }
                let now = Int64(time(nil))
                let context = try store.open()
                try AuditCommand.requireTrail(context)
                var query = AuditQuery(
                    tenant: project ? "" : tenant, uid: user, kindName: kind.map(AuditCommand.kindName),
                    since: try since.map { try AuditTime.parse($0, now: now, option: "--since") },
                    until: try until.map { try AuditTime.parse($0, now: now, option: "--until") }, chain: chain)
                let printer = AuditPrinter(json: output.json)
                var left = limit
                while left > 0 {
                    query.limit = min(left, AuditQuery.maxLimit)
                    let page = try context.auditRecords(query)
                    printer.print(page)
                    left -= page.count
                    guard page.count == query.limit, let last = page.last else { break }
                    if chain != nil { query.afterSeq = last.seq } else { query.after = last.position }
                }
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every chain of the stored trail; say where one breaks (exit 1).",
            discussion: """
                Checks each event's MAC and its link to the event before it, the numbering from the \
                chain's anchor (the first event kept after purges) to its head, and the head itself: an \
                event deleted, inserted, altered or reordered breaks its chain at that event, and the \
                command names it and exits 1. Events MACed under a key not given (an earlier master \
                key: --previous-key-file) are counted as unchecked, which is not a break. Exit 0 when \
                every chain is whole.
                """)
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try running {
                let context = try store.open()
                try AuditCommand.requireTrail(context)
                let result = try context.verifyAuditTrail()
                if output.json {
                    for chain in result.chains {
                        Output.json(.object([
                            ("chain", .string(chain.chain)), ("anchor", .int(chain.anchorSeq)),
                            ("head", .int(chain.headSeq)), ("verified", .int(Int64(chain.verified))),
                            ("unchecked", .int(Int64(chain.unchecked))),
                            ("missingKeys", .array(chain.missingKeys.map(JSONValue.string))),
                            ("intact", .bool(chain.intact)), ("brokenAt", chain.brokenAt.map(JSONValue.int) ?? .null),
                            ("problem", Output.string(chain.problem)),
                        ]))
                    }
                } else {
                    Output.table(["CHAIN", "EVENTS", "VERIFIED", "UNCHECKED", "STATE"], result.chains.map {
                        [$0.chain, "\($0.anchorSeq)-\($0.headSeq)", Output.count($0.verified),
                         Output.count($0.unchecked), $0.brokenAt.map { "BROKEN at event \($0)" } ?? "intact"]
                    })
                    for chain in result.chains {
                        if let at = chain.brokenAt {
                            Terminal.error("mfactl: chain \(chain.chain) breaks at event \(at): \(chain.problem ?? "")")
                        } else if !chain.missingKeys.isEmpty {
                            Terminal.error("""
                                mfactl: chain \(chain.chain): \(chain.unchecked) events under key \
                                \(chain.missingKeys.joined(separator: ", ")) not checked: give it with --previous-key-file
                                """)
                        }
                    }
                }
                guard result.intact else { throw ExitCode(ExitStatus.partial) }
            }
        }
    }

    struct Purge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete events past the configuration's retentionDays and maxEvents, keeping each chain verifiable.",
            discussion: "`mfactl purge` does this too, with the other expired records.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            try running {
                let deleted = try store.open().purgeAuditTrail()
                if output.json {
                    Output.json(.object([("deleted", .int(Int64(deleted)))]))
                } else {
                    Terminal.out("deleted \(Output.count(deleted)) audit events")
                }
            }
        }
    }

    /// Fails with exit 69 when the store keeps no trail and holds no event.
    static func requireTrail(_ context: MFAContext) throws {
        guard try !context.config().auditTrail.store, try context.auditChains().isEmpty else { return }
        throw Failure("""
            this store keeps no audit trail (audit events are not stored in it): events go only to the host's audit callback (MFAOptions.audit, \
            mfa_options.audit, audit= in Python). Turn it on with mfactl config update \
            '{"auditTrail":{"store":true}}'
            """, status: ExitStatus.unavailable)
    }

    /// A kind as given on the command line, as stored: `sign-in-failure` -> `SIGN_IN_FAILURE`.
    static func kindName(_ text: String) -> String {
        String(text.uppercased().map { $0 == "-" ? "_" : $0 })
    }
}

/// Prints stored events: a line each for people, a JSON object each for scripts.
struct AuditPrinter {
    let json: Bool

    func print(_ records: [AuditRecord]) {
        for record in records {
            if json {
                Output.json(.object([
                    ("chain", .string(record.chain)), ("seq", .int(record.seq)), ("time", .int(record.time)),
                    ("kind", .string(record.kindName)), ("tenant", Output.string(record.tenant.isEmpty ? nil : record.tenant)),
                    ("uid", Output.string(record.uid.isEmpty ? nil : record.uid)),
                    ("factorId", Output.string(record.factorID.isEmpty ? nil : record.factorID)),
                    ("enrollmentId", Output.string(record.enrollmentID.isEmpty ? nil : record.enrollmentID)),
                    ("detail", .string(record.detail)), ("actor", Output.string(record.actor.isEmpty ? nil : record.actor)),
                    ("keyId", .string(record.keyID)),
                ]))
            } else {
                var line = "\(Output.date(record.time))  \(record.chain)#\(record.seq)  \(record.kindName)"
                if !record.tenant.isEmpty { line += "  tenant=\(record.tenant)" }
                if !record.uid.isEmpty { line += "  uid=\(record.uid)" }
                if !record.factorID.isEmpty { line += "  factor=\(record.factorID)" }
                if !record.enrollmentID.isEmpty { line += "  enrollment=\(record.enrollmentID)" }
                line += "  \(record.detail)"
                if !record.actor.isEmpty { line += "  actor=\(record.actor)" }
                Terminal.out(line)
            }
        }
    }
}

/// The times `mfactl audit search` takes.
enum AuditTime {
    /// Unix seconds; `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS][Z]` (UTC); or a
    /// time before `now`: a number and s, m, h or d.
    static func parse(_ text: String, now: Int64, option: String) throws -> Int64 {
        if let seconds = Int64(text) { return seconds }
        if let unit = text.last, let count = Int64(text.dropLast()), count >= 0, count <= 100_000 * 86_400 {
            let scale: Int64? = ["s": 1, "m": 60, "h": 3600, "d": 86_400][unit]
            if let scale { return now - count * scale }
        }
        if let time = date(text) { return time }
        throw Failure("\(option): not a time: give Unix seconds, 2026-11-29, 2026-11-29T08:30:00Z or 15m, 2h, 7d",
                      status: ExitStatus.usage)
    }

    /// A UTC date, or date and time, as Unix seconds.
    private static func date(_ text: String) -> Int64? {
        var rest = Substring(text)
        if rest.hasSuffix("Z") { rest = rest.dropLast() }
        let parts = rest.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return nil }
        let day = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int64($0) }
        guard day.count == 3, let year = day[0], let month = day[1], let date = day[2], parts[0].count == 10,
              (1...12).contains(month), (1...31).contains(date) else { return nil }
        var seconds: Int64 = 0
        if parts.count == 2 {
            let clock = parts[1].split(separator: ":", omittingEmptySubsequences: false).map { Int64($0) }
            guard (2...3).contains(clock.count), let hour = clock[0], let minute = clock[1],
                  (0...23).contains(hour), (0...59).contains(minute) else { return nil }
            let second = clock.count == 3 ? clock[2] : 0
            guard let second, (0...60).contains(second) else { return nil }
            seconds = hour * 3600 + minute * 60 + second
        }
        // Days since 1970-01-01 from a civil date (proleptic Gregorian).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + date - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return (era * 146_097 + doe - 719_468) * 86_400 + seconds
    }
}
