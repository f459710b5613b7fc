/// The JSON Schema `format`s the grammar enforces, each as a regular expression over the
/// string (whole match) written from its RFC grammar.
///
/// | format | grammar |
/// |---|---|
/// | `date`, `time`, `date-time` | RFC 3339 §5.6 `full-date`, `full-time`, `date-time`; days checked against the month and leap years; `T`/`Z` in either case; no leap second (`:60`) |
/// | `duration` | RFC 3339 Appendix A (ISO 8601 durations) |
/// | `email` | RFC 5321 `Mailbox` with a dot-atom local part and a domain of RFC 1123 host names (no quoted local parts, no address literals) |
/// | `hostname` | RFC 1123 §2.1: dot-separated labels of 1–63 letters, digits and inner hyphens; at most 253 bytes |
/// | `ipv4` | RFC 2673 §3.2 dotted-quad, no leading zeros |
/// | `ipv6` | RFC 4291 §2.2 text forms, including `::` compression and an embedded IPv4 address |
/// | `uri`, `uri-reference` | RFC 3986 `URI` and `URI-reference` (host names as `reg-name`; no IP literals in brackets) |
/// | `uuid` | RFC 4122 text form |
///
/// Characters JSON must escape never appear in these strings, so every format string is a
/// pattern string in the matcher.
public enum JSONSchemaFormats {
    /// The formats enforced.
    public static var names: [String] { Array(regexes.keys).sorted() }

    /// The regular expression a string of `format` must match as a whole, or nil when the
    /// format is not enforced.
    public static func regex(_ format: String) -> String? { regexes[format] }

    /// A length limit implied by the format, in bytes.
    public static func maximumLength(_ format: String) -> Int? {
        switch format {
        case "hostname": 253
        case "email": 254
        default: nil
        }
    }

    static let digit = "[0-9]"
    static let year = "[0-9]{4}"
    static let leapYear = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
    static let monthDay = "(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)"
    static let date = "(?:\(year)-\(monthDay)|\(leapYear)-02-29)"
    static let time = "(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]+)?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
    static let durationTime = "T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)"
    static let duration = "P(?:(?:[0-9]+D|[0-9]+M(?:[0-9]+D)?|[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?)(?:\(durationTime))?|\(durationTime)|[0-9]+W)"
    static let label = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    static let hostname = "\(label)(?:\\.\(label))*"
    static let atext = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
    static let email = "\(atext)+(?:\\.\(atext)+)*@\(hostname)"
    static let octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
    static let ipv4 = "\(octet)(?:\\.\(octet)){3}"
    static let ipv6: String = {
        let h16 = "[0-9A-Fa-f]{1,4}", ls32 = "(?:\(h16):\(h16)|\(ipv4))"
        func before(_ n: Int) -> String { n < 0 ? "" : n == 0 ? "(?:\(h16))?" : "(?:(?:\(h16):){0,\(n)}\(h16))?" }
        let forms = [
            "(?:\(h16):){6}\(ls32)", "::(?:\(h16):){5}\(ls32)", "\(before(0))::(?:\(h16):){4}\(ls32)",
            "\(before(1))::(?:\(h16):){3}\(ls32)", "\(before(2))::(?:\(h16):){2}\(ls32)", "\(before(3))::\(h16):\(ls32)",
            "\(before(4))::\(ls32)", "\(before(5))::\(h16)", "\(before(6))::",
        ]
        return forms.map { "(?:\($0))" }.joined(separator: "|")
    }()
    // RFC 3986 §3 and appendix A.
    static let unreserved = "A-Za-z0-9._~\\-", subDelims = "!$&'()*+,;="
    static let pct = "%[0-9A-Fa-f]{2}"
    static let pchar = "(?:[\(unreserved)\(subDelims):@]|\(pct))"
    static let segment = "\(pchar)*", segmentNZ = "\(pchar)+"
    static let segmentNZNC = "(?:[\(unreserved)\(subDelims)@]|\(pct))+"
    static let authority = "(?:(?:[\(unreserved)\(subDelims):]|\(pct))*@)?(?:[\(unreserved)\(subDelims)]|\(pct))*(?::[0-9]*)?"
    static let pathAbempty = "(?:/\(segment))*"
    static let pathAbsolute = "/(?:\(segmentNZ)(?:/\(segment))*)?"
    static let pathRootless = "\(segmentNZ)(?:/\(segment))*"
    static let pathNoscheme = "\(segmentNZNC)(?:/\(segment))*"
    static let queryOrFragment = "(?:\(pchar)|[/?])*"
    static let tail = "(?:\\?\(queryOrFragment))?(?:#\(queryOrFragment))?"
    static let uri = "[A-Za-z][A-Za-z0-9+.-]*:(?://\(authority)\(pathAbempty)|\(pathAbsolute)|\(pathRootless))?\(tail)"
    static let relativeRef = "(?://\(authority)\(pathAbempty)|\(pathAbsolute)|\(pathNoscheme))?\(tail)"
    static let hexGroup = "[0-9A-Fa-f]"

    static let regexes: [String: String] = [
        "date": date,
        "time": time,
        "date-time": "\(date)[Tt]\(time)",
        "duration": duration,
        "email": email,
        "hostname": hostname,
        "ipv4": ipv4,
        "ipv6": ipv6,
        "uri": uri,
        "uri-reference": "(?:\(uri))|(?:\(relativeRef))",
        "uuid": "\(hexGroup){8}-\(hexGroup){4}-\(hexGroup){4}-\(hexGroup){4}-\(hexGroup){12}",
    ]
}
