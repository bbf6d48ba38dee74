/// What the metrics learn of a request for a code as it runs.
struct CodeSendRequest: Sendable {
    /// The tenant ("" for the project), once known.
    var tenant = ""
    /// Whether the code was a configured fixed one (an SMS test number): nothing was sent.
    var fixedCode = false
}

extension MFAContext {
    /// Runs a request for a code of the kind `factorID` and counts how it
    /// ended on the kind's channel (`libmfa_code_sends_total`).
    func countedSend(factorID: String, _ purpose: SendPurpose, _ request: inout CodeSendRequest,
                     _ body: (inout CodeSendRequest) throws(MFAError) -> String) throws(MFAError) -> String {
        do {
            let verificationID = try body(&request)
            metrics.codeSend(factorID: factorID, purpose, request.fixedCode ? .testNumber : .sent,
                             tenant: request.tenant)
            return verificationID
        } catch {
            metrics.codeSend(factorID: factorID, purpose, SendOutcome(error.code), tenant: request.tenant)
            throw error
        }
    }
}
