/// Which tenants an admin listing covers.
public enum TenantFilter: Sendable, Equatable {
    /// Every tenant and the project.
    case any
    /// The project only (users with no tenant).
    case project
    /// One tenant.
    case tenant(String)

    /// A filter from a tenant name: nil is every tenant, "" the project.
    public init(_ tenant: String?) {
        switch tenant {
        case nil: self = .any
        case ""?: self = .project
        case let name?: self = .tenant(name)
        }
    }

    /// The stored tenant key to filter on, or nil for every tenant.
    var key: String? {
        switch self {
        case .any: nil
        case .project: ""
        case .tenant(let name): name
        }
    }
}

/// A user who has second factors, as the admin API lists them.
public struct AdminUser: Sendable, Equatable {
    /// The tenant, or nil for the project.
    public let tenant: String?
    /// The user's id.
    public let uid: String
    /// How many factors of each kind the user has, by factor id, in factor-id order.
    public let factorCounts: [FactorCount]

    /// The number of factors of one kind.
    public struct FactorCount: Sendable, Equatable {
        /// The factor id ("totp", "phone", "recovery").
        public let factorID: String
        /// How many.
        public let count: Int

        /// Creates a count.
        public init(factorID: String, count: Int) {
            self.factorID = factorID
            self.count = count
        }
    }

    /// Every factor of the user, of any kind.
    public var factorTotal: Int { factorCounts.reduce(0) { $0 + $1.count } }
}

/// One page of `MFAContext.listUsers`.
public struct AdminUserPage: Sendable, Equatable {
    /// The users, ordered by tenant (the project first) then uid.
    public let users: [AdminUser]
    /// Pass it back to get the next page; nil when this page is the last.
    public let nextCursor: String?
}

/// A factor together with the user who has it, as the admin API shows it.
public struct AdminFactor: Sendable, Equatable {
    /// The tenant, or nil for the project.
    public let tenant: String?
    /// The user's id.
    public let uid: String
    /// The factor (phone numbers masked unless asked otherwise).
    public let info: MultiFactorInfo
}

/// What the store holds, counted per tenant and kind (`MFAContext.stats`).
public struct AdminStats: Sendable, Equatable {
    /// One tenant's counts of one factor kind.
    public struct Row: Sendable, Equatable {
        /// The tenant, or nil for the project.
        public let tenant: String?
        /// The factor id.
        public let factorID: String
        /// Factors of this kind in this tenant.
        public let factors: Int
        /// Users with at least one factor of this kind in this tenant.
        public let users: Int

        /// Creates a row.
        public init(tenant: String?, factorID: String, factors: Int, users: Int) {
            self.tenant = tenant
            self.factorID = factorID
            self.factors = factors
            self.users = users
        }
    }

    /// One tenant's users.
    public struct TenantUsers: Sendable, Equatable {
        /// The tenant, or nil for the project.
        public let tenant: String?
        /// Users with at least one factor.
        public let users: Int

        /// Creates a tenant's count.
        public init(tenant: String?, users: Int) {
            self.tenant = tenant
            self.users = users
        }
    }

    /// Per tenant (the project first) and kind.
    public let rows: [Row]
    /// Users with factors per tenant.
    public let tenants: [TenantUsers]
    /// Users with at least one factor, over every tenant.
    public var totalUsers: Int { tenants.reduce(0) { $0 + $1.users } }
    /// Factors, over every tenant and kind.
    public var totalFactors: Int { rows.reduce(0) { $0 + $1.factors } }

    /// Creates statistics.
    public init(rows: [Row], tenants: [TenantUsers]) {
        self.rows = rows
        self.tenants = tenants
    }
}

/// What `MFAContext.resetUser` or `deleteUser` removed.
public struct AdminRemoval: Sendable, Equatable {
    /// The factors removed.
    public let factors: [MultiFactorInfo]
}
