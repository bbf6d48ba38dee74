import ArgumentParser
import MFA

/// `mfactl keys rotate|check|rewrap`.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Re-encrypt stored secrets under the current master key, or check them.",
        subcommands: [Rotate.self, Check.self, Rewrap.self])

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-encrypt every stored secret not under the current key, in batches.",
            discussion: """
                Give the new key as the current one and the old ones with --previous-key-file. Each \
                batch is its own transaction; Ctrl-C stops after the current batch (exit 130) and \
                nothing is lost: run the command again to go on. Keep the old keys until the tokens \
                they sealed have expired (minutes), then check with `mfactl keys check` using the new key alone.
                """)
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var actor: ActorOption
        @Option(help: "Records per transaction, 1 to 10000.") var batchSize = 500

        func run() throws {
            try running {
                let context = try store.open()
                Interrupt.install()
                let progress = Progress("re-encrypted", json: output.json)
                let result = try context.rotateKeys(batchSize: batchSize, actor: actor.name) { done, total in
                    progress.update(done, total)
                    return !Interrupt.isRequested
                }
                progress.finish()
                if output.json {
                    Output.json(.object([("rotated", .int(Int64(result.rotated))),
                                         ("remaining", .int(Int64(result.remaining))), ("stopped", .bool(result.stopped))]))
                } else {
                    Terminal.out("re-encrypted \(Output.count(result.rotated)) records; \(Output.count(result.remaining)) left")
                }
                if result.stopped {
                    throw Failure("interrupted: nothing is lost; run `mfactl keys rotate` again to go on",
                                  status: ExitStatus.interrupted)
                }
            }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open every stored secret with the keys given and report those that do not open (exit 77).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "Records per read, 1 to 10000.") var batchSize = 1000

        func run() throws {
            try running {
                let context = try store.open()
                Interrupt.install()
                let progress = Progress("checked", json: output.json)
                let result = try context.checkSeals(batchSize: batchSize) { done, total in
                    progress.update(done, total)
                    return !Interrupt.isRequested
                }
                progress.finish()
                if output.json {
                    Output.json(.object([("checked", .int(Int64(result.checked))),
                                         ("failed", .int(Int64(result.failedCount))),
                                         ("failedIds", .array(result.failed.map(JSONValue.string)))]))
                } else {
                    Terminal.out("checked \(Output.count(result.checked)) records; \(Output.count(result.failedCount)) do not open")
                    for id in result.failed { Terminal.out("  does not open: \(id)") }
                }
                if Interrupt.isRequested { throw Failure("interrupted", status: ExitStatus.interrupted) }
                if result.failedCount > 0 {
                    throw Failure("\(result.failedCount) records do not open with the keys given", status: ExitStatus.keyError)
                }
            }
        }
    }

    struct Rewrap: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-wrap the store's data keys under another key of the HSM (rotate the HSM key).",
            discussion: """
                Open the store with the HSM options as usual; --to names the HSM key to wrap with from \
                now on (create it in the token first). No stored secret is touched: it takes a few HSM \
                calls, and servers already running go on signing users in. Then set --hsm-key (or \
                the module's key option) to the new label everywhere, and delete the old key from the \
                token once every store it wrapped has been re-wrapped.
                """)
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var actor: ActorOption
        @Option(help: ArgumentHelp("The label of the HSM key to wrap with.", valueName: "label")) var to: String

        func run() throws {
            try running {
                let context = try store.open()
                let result = try context.rewrapDataKeys(to: to, actor: actor.name)
                if output.json {
                    Output.json(.object([("rewrapped", .int(Int64(result.rewrapped))), ("key", .string(to)),
                                         ("previous", .array(result.previousLabels.map(JSONValue.string)))]))
                } else {
                    Terminal.out("re-wrapped \(Output.count(result.rewrapped)) data keys under \"\(to)\" "
                        + "(before: \(result.previousLabels.joined(separator: ", ")))")
                }
            }
        }
    }
}
