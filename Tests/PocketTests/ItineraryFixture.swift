import Pocket

// Hand-written Generable conformances, shaped exactly as the @Generable macro generates them
// (see CONTRACT-generable.md), used by the conversion and schema tests. Itinerary is recursive.
// Inside `extension Handwritten.X`, unqualified lookup does not see `Handwritten`'s other nested
// types (nor `X` itself), so type names in the extensions are written in full.

/// A namespace, so that these names cannot clash with types other test files declare.
enum Handwritten {
    struct Itinerary: Equatable {
        var title: String
        var days: [DayPlan]
        var relatedItineraries: [Itinerary]
    }

    struct DayPlan: Equatable {
        var day: Int
        var activities: [Activity]
        var note: String?
    }

    struct Activity: Equatable {
        var title: String
        var kind: ActivityKind
        var cost: Double?
    }

    enum ActivityKind: String, Equatable {
        case sightseeing
        case food
    }
}

extension Handwritten.Itinerary: Generable {
    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Handwritten.Itinerary.self, description: "A travel plan", properties: [
            GenerationSchema.Property(name: "title", description: "Name of the trip", type: String.self),
            GenerationSchema.Property(name: "days", type: [Handwritten.DayPlan].self, guides: [.count(1...3)]),
            GenerationSchema.Property(name: "relatedItineraries", type: [Handwritten.Itinerary].self, guides: [.maximumCount(2)]),
        ])
    }

    init(_ content: GeneratedContent) throws {
        self.title = try content.value(forProperty: "title")
        self.days = try content.value(forProperty: "days")
        self.relatedItineraries = try content.value(forProperty: "relatedItineraries")
    }

    var generatedContent: GeneratedContent {
        GeneratedContent(properties: [
            "title": self.title, "days": self.days, "relatedItineraries": self.relatedItineraries,
        ])
    }

    struct PartiallyGenerated: Identifiable, ConvertibleFromGeneratedContent {
        var id: GenerationID
        var title: String.PartiallyGenerated?
        var days: [Handwritten.DayPlan].PartiallyGenerated?
        var relatedItineraries: [Handwritten.Itinerary].PartiallyGenerated?

        init(_ content: GeneratedContent) throws {
            self.id = content.id ?? GenerationID()
            self.title = try content.value(forProperty: "title")
            self.days = try content.value(forProperty: "days")
            self.relatedItineraries = try content.value(forProperty: "relatedItineraries")
        }
    }
}

extension Handwritten.DayPlan: Generable {
    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Handwritten.DayPlan.self, properties: [
            GenerationSchema.Property(name: "day", type: Int.self, guides: [.range(1...14)]),
            GenerationSchema.Property(name: "activities", type: [Handwritten.Activity].self, guides: [.minimumCount(1)]),
            GenerationSchema.Property(name: "note", type: String?.self),
        ])
    }

    init(_ content: GeneratedContent) throws {
        self.day = try content.value(forProperty: "day")
        self.activities = try content.value(forProperty: "activities")
        self.note = try content.value(forProperty: "note")
    }

    var generatedContent: GeneratedContent {
        GeneratedContent(properties: ["day": self.day, "activities": self.activities, "note": self.note])
    }

    struct PartiallyGenerated: Identifiable, ConvertibleFromGeneratedContent {
        var id: GenerationID
        var day: Int.PartiallyGenerated?
        var activities: [Handwritten.Activity].PartiallyGenerated?
        var note: String.PartiallyGenerated?

        init(_ content: GeneratedContent) throws {
            self.id = content.id ?? GenerationID()
            self.day = try content.value(forProperty: "day")
            self.activities = try content.value(forProperty: "activities")
            self.note = try content.value(forProperty: "note")
        }
    }
}

extension Handwritten.Activity: Generable {
    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Handwritten.Activity.self, properties: [
            GenerationSchema.Property(name: "title", type: String.self, guides: [.pattern(source: "^[A-Z].*")]),
            GenerationSchema.Property(name: "kind", type: Handwritten.ActivityKind.self),
            GenerationSchema.Property(name: "cost", type: Double?.self, guides: [.minimum(0)]),
        ])
    }

    init(_ content: GeneratedContent) throws {
        self.title = try content.value(forProperty: "title")
        self.kind = try content.value(forProperty: "kind")
        self.cost = try content.value(forProperty: "cost")
    }

    var generatedContent: GeneratedContent {
        GeneratedContent(properties: ["title": self.title, "kind": self.kind, "cost": self.cost])
    }

    struct PartiallyGenerated: Identifiable, ConvertibleFromGeneratedContent {
        var id: GenerationID
        var title: String.PartiallyGenerated?
        var kind: Handwritten.ActivityKind.PartiallyGenerated?
        var cost: Double.PartiallyGenerated?

        init(_ content: GeneratedContent) throws {
            self.id = content.id ?? GenerationID()
            self.title = try content.value(forProperty: "title")
            self.kind = try content.value(forProperty: "kind")
            self.cost = try content.value(forProperty: "cost")
        }
    }
}

extension Handwritten.ActivityKind: Generable {
    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Handwritten.ActivityKind.self, description: "What kind of activity", anyOf: ["sightseeing", "food"])
    }

    init(_ content: GeneratedContent) throws {
        guard case .string(let value) = content.kind, let kind = Handwritten.ActivityKind(rawValue: value) else {
            throw GeneratedContent.ConversionError(path: [], expected: "one of \"sightseeing\", \"food\"", content: content)
        }
        self = kind
    }

    var generatedContent: GeneratedContent {
        GeneratedContent(kind: .string(rawValue))
    }
}

/// The JSON Schema of `Itinerary.generationSchema`, written by hand from the JSON Schema
/// keywords and the key order documented in GenerationSchema+JSONSchema.swift.
let itineraryObjectSchema = ##"{"type":"object","properties":{"title":{"type":"string","description":"Name of the trip"},"days":{"type":"array","items":{"$ref":"#/$defs/DayPlan"},"minItems":1,"maxItems":3},"relatedItineraries":{"type":"array","items":{"$ref":"#/$defs/Itinerary"},"maxItems":2}},"required":["title","days","relatedItineraries"],"x-order":["title","days","relatedItineraries"],"additionalProperties":false,"description":"A travel plan","title":"Itinerary""##
let activityDefinition = ##"{"type":"object","properties":{"title":{"type":"string","pattern":"^[A-Z].*"},"kind":{"$ref":"#/$defs/ActivityKind"},"cost":{"type":"number","minimum":0}},"required":["title","kind"],"x-order":["title","kind","cost"],"additionalProperties":false,"title":"Activity"}"##
let activityKindDefinition = ##"{"type":"string","enum":["sightseeing","food"],"description":"What kind of activity","title":"ActivityKind"}"##
let dayPlanDefinition = ##"{"type":"object","properties":{"day":{"type":"integer","minimum":1,"maximum":14},"activities":{"type":"array","items":{"$ref":"#/$defs/Activity"},"minItems":1},"note":{"type":"string"}},"required":["day","activities"],"x-order":["day","activities","note"],"additionalProperties":false,"title":"DayPlan"}"##
let itineraryJSONSchema = itineraryObjectSchema + ##","$defs":{"Activity":"## + activityDefinition
    + ##","ActivityKind":"## + activityKindDefinition + ##","DayPlan":"## + dayPlanDefinition
    + ##","Itinerary":"## + itineraryObjectSchema + "}}}"
