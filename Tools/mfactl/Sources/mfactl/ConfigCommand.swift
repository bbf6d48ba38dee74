import ArgumentParser
import MFA

/// `mfactl config get|set|update`.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Show or change the project's or a tenant's MFA configuration.",
        subcommands: [Get.self, Set.self, Update.self])

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the effective configuration as JSON (the tenant's over the project's over the defaults).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var tenant: TenantOption

        func run() throws {
            try running {
                Terminal.out(try store.open().configJSON(tenant: tenant.tenant))
            }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the configuration with a JSON document (libmfa's, or the guides' shapes).",
            discussion: "A field the document does not name takes its default (for a tenant, the project's value).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var tenant: TenantOption
        @Argument(help: ArgumentHelp("The JSON document, @<file> to read it from a file, or - for standard input.",
                                     valueName: "json"))
        var document: String

        func run() throws {
            try running {
                try store.open().setConfig(json: try readDocument(document), tenant: tenant.tenant)
                Terminal.out("configuration set")
            }
        }
    }

    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change only the fields a JSON document names (merge), keeping the rest.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var tenant: TenantOption
        @Argument(help: ArgumentHelp("The JSON document, @<file> to read it from a file, or - for standard input.",
                                     valueName: "json"))
        var document: String

        func run() throws {
            try running {
                try store.open().updateConfig(json: try readDocument(document), tenant: tenant.tenant)
                Terminal.out("configuration updated")
            }
        }
    }
}

/// A document given inline, as `@file`, or `-` for standard input.
func readDocument(_ argument: String) throws -> String {
    if argument == "-" { return try Terminal.readText("-") }
    if argument.hasPrefix("@") { return try Terminal.readText(String(argument.dropFirst())) }
    return argument
}
