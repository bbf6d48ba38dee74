import ArgumentParser
import MFA

/// `mfactl devices list|revoke`: a user's remembered devices.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices", abstract: "Show or forget a user's remembered devices.",
        subcommands: [List.self, Revoke.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List one user's remembered devices that have not expired, the most recently used first.",
            discussion: "A user with none is exit 66 (with --json: [] and exit 0).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var tenant: TenantOption
        @Argument(help: "The user's uid.") var uid: String

        func run() throws {
            try running {
                let devices = try store.open().rememberedDevices(uid: uid, tenant: tenant.tenant)
                if output.json {
                    Output.json(.array(devices.map(Self.json)))
                    return
                }
                guard !devices.isEmpty else {
                    throw Failure("\(uid) has no remembered devices", status: ExitStatus.notFound)
                }
                Output.table(["DEVICE ID", "LABEL", "REMEMBERED (UTC)", "LAST USED (UTC)", "EXPIRES (UTC)"],
                             devices.map { [$0.id, $0.label ?? "-", Output.date($0.createdAt),
                                            Output.date($0.lastUsedAt), Output.date($0.expiresAt)] })
            }
        }

        static func json(_ device: RememberedDevice) -> JSONValue {
            .object([("tenant", Output.string(device.tenant)), ("uid", .string(device.uid)),
                     ("deviceId", .string(device.id)), ("label", Output.string(device.label)),
                     ("createdAt", .int(device.createdAt)), ("lastUsedAt", .int(device.lastUsedAt)),
                     ("expiresAt", .int(device.expiresAt))])
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget one of a user's remembered devices, or all of them (--all).",
            discussion: "Their tokens no longer stand in for a second factor. An unknown device id is exit 66.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions
        @OptionGroup var actor: ActorOption
        @OptionGroup var tenant: TenantOption
        @Argument(help: "The user's uid.") var uid: String
        @Argument(help: "The device's id (from devices list).") var deviceID: String?
        @Flag(help: "Forget every remembered device of the user.") var all = false

        func validate() throws {
            if all == (deviceID != nil) { throw ValidationError("give a device id or --all") }
        }

        func run() throws {
            try running {
                let count = try store.open().adminRevokeRememberedDevices(uid: uid, tenant: tenant.tenant,
                                                                          deviceID: deviceID, actor: actor.name)
                if output.json {
                    Output.json(.object([("tenant", Output.string(tenant.tenant)), ("uid", .string(uid)),
                                         ("revoked", .int(Int64(count)))]))
                } else {
                    Terminal.out("forgot \(count) remembered device\(count == 1 ? "" : "s") of \(uid)")
                }
            }
        }
    }
}
