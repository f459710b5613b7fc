import Foundation
import Pocket

// The @Generable examples of Apple's FoundationModels documentation and WWDC25 sessions,
// written as they appear there (plus Equatable, so that round trips can be compared, and the
// recursive `relatedItineraries` the issue asks for). GenerableMacroTests checks each one.

@Generable
struct Person: Equatable {
    var name: String
    var age: Int
}

@Generable(description: "Basic profile information about a cat")
struct CatProfile: Equatable {
    // A guide isn't necessary for basic fields.
    var name: String

    @Guide(description: "The age of the cat", .range(0...20))
    var age: Int

    @Guide(description: "A one sentence profile about the cat's personality")
    var profile: String
}

@Generable
struct SearchSuggestions: Equatable {
    @Guide(description: "A list of suggested search terms", .count(4))
    var searchTerms: [String]
}

enum LandmarkNames {
    static let all = ["Grand Canyon", "Yosemite", "Joshua Tree"]
}

@Generable
struct Itinerary: Equatable {
    let title: String
    @Guide(.anyOf(LandmarkNames.all))
    let destinationName: String
    let description: String

    @Guide(description: "An explanation of how the itinerary meets the user's special requests.")
    let rationale: String

    @Guide(description: "A list of day-by-day plans.")
    @Guide(.count(3))
    let days: [DayPlan]

    @Guide(description: "Other trips a traveler might enjoy", .maximumCount(2))
    var relatedItineraries: [Itinerary]
}

@Generable
struct DayPlan: Equatable {
    @Guide(description: "A unique and exciting title for this day plan.")
    let title: String
    let subtitle: String
    let destination: String

    @Guide(.count(3))
    let activities: [Activity]
}

@Generable
struct Activity: Equatable {
    let type: Kind
    let title: String
    let description: String
}

@Generable
enum Kind: Equatable {
    case sightseeing
    case foodAndDining
    case shopping
    case hotelAndLodging
}

@Generable
struct NPC: Equatable {
    let name: String
    let coffeeOrder: String?
    let encounter: Encounter

    @Generable
    enum Encounter: Equatable {
        case orderCoffee(String)
        case wantToTalkToManager(complaint: String)
    }
}

@Generable
struct RegexNames: Equatable {
    @Guide(description: "A title and a last name", /(?:Mr|Mrs) [A-Z][a-z]+/)
    var formalName: String

    @Guide(Regex("[a-z]{2,8}\\d{2}"))
    var handle: String

    @Guide(description: "A raw-string pattern", Regex(#"[a-z]{1,10}@[a-z]{1,10}\.com"#))
    var email: String
}

@Generable
struct Bookshelf: Equatable {
    @Guide(description: "Favorite book titles", .maximumCount(3))
    var favorites: [String]

    @Guide(.minimumCount(1), .element(.range(1...5)))
    var ratings: [Int]

    var note: String?
}

struct FindContacts: Tool {
    let name = "findContacts"
    let description = "Finds a specific number of contacts"

    @Generable
    struct Arguments: Equatable {
        @Guide(description: "The number of contacts to get", .range(1...10))
        let count: Int

        @Guide(description: "The age generation of contacts")
        let generation: Generation

        @Generable
        enum Generation: Equatable {
            case babyBoomers
            case genX
            case millennial
            case genZ
        }
    }

    func call(arguments: Arguments) async throws -> String {
        "\(arguments.count) contacts of \(arguments.generation)"
    }
}

/// A public type: its generated members must be public for the conformance to compile.
@Generable(description: "A public recipe")
public struct PublicRecipe: Equatable {
    public var title: String
    public var servings: Int
    public var steps: [String]

    public init(title: String, servings: Int, steps: [String]) {
        self.title = title
        self.servings = servings
        self.steps = steps
    }
}

/// Things the parser must skip or survive: computed and static properties, methods, nested
/// types, comments and string literals containing braces, keywords as names, observers.
@Generable
struct TrickyDeclaration: Equatable {
    /* A { comment } with braces */
    var `default`: String // trailing } comment
    static let counter = 0
    var total: Double = 1.5 {
        didSet { print("changed { from } \(oldValue)") }
    }
    let constant = "not generated"
    var computed: Int { `default`.count }
    var text: String = """
        multi-line { "quoted" } \(1 + 2)
        """
    var raw: String = #"raw "string" with } and \(interpolation)"#
    var flag: Bool, count: Int
    func method() -> Int { let braces = "}"; return braces.count }
    struct Nested { var ignored: Int }
    init(default: String, total: Double, text: String, raw: String, flag: Bool, count: Int) {
        self.default = `default`
        self.total = total
        self.text = text
        self.raw = raw
        self.flag = flag
        self.count = count
    }
}
