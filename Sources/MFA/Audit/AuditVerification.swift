/// What `MFAContext.verifyAuditTrail` found in one chain.
public struct AuditChainVerification: Sendable, Equatable {
    /// The chain's name.
    public let chain: String
    /// The first event kept (the anchor).
    public let anchorSeq: Int64
    /// The last event, as the head row says.
    public let headSeq: Int64
    /// Events whose MAC and link were checked.
    public let verified: Int
    /// Events that could not be checked: their key is not in the keyring
    /// (`missingKeys`). Their links are still checked by the events after them.
    public let unchecked: Int
    /// The ids of the keys the unchecked events (or the head) were MACed with.
    public let missingKeys: [String]
    /// The event at which the chain breaks: the first one missing, altered,
    /// inserted or out of place; nil if the chain is whole.
    public let brokenAt: Int64?
    /// What is wrong at `brokenAt`; nil if the chain is whole.
    public let problem: String?

    /// Creates a chain's verification.
    public init(chain: String, anchorSeq: Int64, headSeq: Int64, verified: Int, unchecked: Int,
                missingKeys: [String], brokenAt: Int64?, problem: String?) {
        self.chain = chain
        self.anchorSeq = anchorSeq
        self.headSeq = headSeq
        self.verified = verified
        self.unchecked = unchecked
        self.missingKeys = missingKeys
        self.brokenAt = brokenAt
        self.problem = problem
    }

    /// Whether the chain is whole (some events may be unchecked).
    public var intact: Bool { brokenAt == nil }
}

/// What `MFAContext.verifyAuditTrail` found: one entry per chain, by name.
public struct AuditVerification: Sendable, Equatable {
    /// Every chain of the store (and every chain name found only in events).
    public let chains: [AuditChainVerification]

    /// Creates a verification.
    public init(chains: [AuditChainVerification]) {
        self.chains = chains
    }

    /// Whether every chain is whole.
    public var intact: Bool { chains.allSatisfy(\.intact) }
    /// Events checked, over every chain.
    public var verified: Int { chains.reduce(0) { $0 + $1.verified } }
    /// Events that could not be checked for want of their key, over every chain.
    public var unchecked: Int { chains.reduce(0) { $0 + $1.unchecked } }
}
