import PocketGGUF
// Temporary until the formats branch lands.
public enum BlockFormats {
    public static let all: [any BlockFormat.Type] = [Q4_1.self, Q8_0.self]
    public static func format(for type: GGMLType) -> (any BlockFormat.Type)? { all.first { $0.type == type } }
}
