/// The public suffixes a relying party id may not be: names under which
/// anyone can register a domain, so that credentials scoped to one would be
/// offered to every site beneath it (browsers refuse such an rp id too).
///
/// This is a short built-in list, not the Public Suffix List: every
/// single-label name (a top-level domain such as `com`, `uk` or `xn--p1ai`)
/// but `localhost`, and the multi-label suffixes relying parties most often
/// meet (country second levels such as `co.uk` and `com.au`, and hosting
/// platforms that give each customer a subdomain, such as `github.io` and
/// `herokuapp.com`). A suffix it does not list is not refused.
enum PublicSuffixes {
    /// The multi-label public suffixes known here.
    static let multiLabel: Set<String> = [
        // Country second levels.
        "co.uk", "org.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "ac.uk", "gov.uk", "nhs.uk", "sch.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "id.au", "asn.au",
        "co.nz", "net.nz", "org.nz", "govt.nz", "ac.nz",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "ed.jp", "gr.jp", "lg.jp",
        "co.kr", "or.kr", "ne.kr", "go.kr", "ac.kr",
        "com.br", "net.br", "org.br", "gov.br", "edu.br",
        "com.cn", "net.cn", "org.cn", "gov.cn", "edu.cn",
        "com.tw", "org.tw", "com.hk", "org.hk", "com.sg", "edu.sg", "com.my", "com.ph", "com.vn", "co.th",
        "co.in", "net.in", "org.in", "gov.in", "ac.in", "co.id", "or.id", "ac.id",
        "co.za", "org.za", "gov.za", "ac.za", "com.ng", "co.ke",
        "com.mx", "com.ar", "com.co", "com.pe", "com.tr", "gov.tr", "co.il", "org.il", "ac.il",
        "com.ua", "com.pl", "com.es", "com.pt", "co.at", "or.at", "com.gr", "com.sa", "com.eg",
        // Hosting platforms that give each customer a subdomain.
        "github.io", "githubusercontent.com", "gitlab.io", "bitbucket.io", "readthedocs.io",
        "herokuapp.com", "herokussl.com", "appspot.com", "blogspot.com", "firebaseapp.com", "web.app",
        "netlify.app", "vercel.app", "now.sh", "pages.dev", "workers.dev", "trycloudflare.com",
        "azurewebsites.net", "cloudapp.net", "cloudfront.net", "s3.amazonaws.com",
        "elasticbeanstalk.com", "fly.dev", "onrender.com", "glitch.me", "repl.co", "surge.sh",
        "ngrok.io", "ngrok.app", "ngrok-free.app", "loca.lt", "deno.dev", "pythonanywhere.com", "wixsite.com",
        "myshopify.com", "neocities.org", "codeberg.page", "sourceforge.io",
    ]

    /// Whether `domain` (lower case, no trailing dot) is a public suffix.
    static func contains(_ domain: String) -> Bool {
        guard domain != "localhost" else { return false }
        return !domain.utf8.contains(UInt8(ascii: ".")) || multiLabel.contains(domain)
    }
}
