/// Merging a configuration update into a stored document, the way the
/// service's `updateProjectConfig` / `updateTenant` do: what the update
/// names changes, everything else stays.
enum ConfigMerge {
    /// Keys whose value an update replaces as a whole even when it is an object.
    static let replacedWhole: Set<String> = ["testPhoneNumbers"]

    /// `update` laid over `base`: objects merge key by key (recursively),
    /// anything else replaces.
    static func merge(_ base: JSONValue, _ update: JSONValue, key: String? = nil) -> JSONValue {
        guard case .object(let baseMembers) = base, case .object(let updateMembers) = update,
              !(key.map(replacedWhole.contains) ?? false) else { return update }
        var members = baseMembers
        for (name, value) in updateMembers {
            if let index = members.firstIndex(where: { $0.0 == name }) {
                members[index].1 = merge(members[index].1, value, key: name)
            } else {
                members.append((name, value))
            }
        }
        return .object(members)
    }
}
