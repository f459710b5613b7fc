import Foundation
import Pocket
import Testing

/// The `@Generable` expansions of Apple's documented examples (AppleExamples.swift): schema
/// JSON against expectations written by hand from the encoding rules in
/// GenerationSchema+JSONSchema.swift (property order, `required`, guides as keywords, named
/// types under `$defs`), conversions both ways, and partial snapshots.
@Suite struct GenerableMacroTests {
    /// Compares two JSON texts as JSON values (key order inside objects aside; `x-order`
    /// carries the property order).
    func expectSameJSON(_ actual: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let a = try JSONSerialization.jsonObject(with: Data(actual.utf8)) as? NSDictionary
        let e = try JSONSerialization.jsonObject(with: Data(expected.utf8)) as? NSDictionary
        #expect(e != nil, "the expected JSON does not parse", sourceLocation: sourceLocation)
        #expect(a == e, "\(actual)", sourceLocation: sourceLocation)
    }

    func roundTrip<T: Generable & Equatable>(_ value: T) throws -> T {
        let json = value.generatedContent.jsonString
        return try T(GeneratedContent(json: json))
    }

    @Test func person() throws {
        try expectSameJSON(Person.generationSchema.jsonSchemaString(), """
            {"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},
             "required":["name","age"],"x-order":["name","age"],"additionalProperties":false,"title":"Person"}
            """)
        let person = Person(name: "Johnny Appleseed", age: 30)
        #expect(person.generatedContent.jsonString == #"{"name":"Johnny Appleseed","age":30}"#)
        #expect(try roundTrip(person) == person)
    }

    @Test func catProfile() throws {
        try expectSameJSON(CatProfile.generationSchema.jsonSchemaString(), """
            {"type":"object","properties":{
               "name":{"type":"string"},
               "age":{"type":"integer","minimum":0,"maximum":20,"description":"The age of the cat"},
               "profile":{"type":"string","description":"A one sentence profile about the cat's personality"}},
             "required":["name","age","profile"],"x-order":["name","age","profile"],"additionalProperties":false,
             "description":"Basic profile information about a cat","title":"CatProfile"}
            """)
        let cat = CatProfile(name: "Tom", age: 3, profile: "Curious.")
        #expect(try roundTrip(cat) == cat)
    }

    @Test func searchSuggestionsCount() throws {
        try expectSameJSON(SearchSuggestions.generationSchema.jsonSchemaString(), """
            {"type":"object","properties":{"searchTerms":{"type":"array","items":{"type":"string"},
               "minItems":4,"maxItems":4,"description":"A list of suggested search terms"}},
             "required":["searchTerms"],"x-order":["searchTerms"],"additionalProperties":false,"title":"SearchSuggestions"}
            """)
        let value = SearchSuggestions(searchTerms: ["a", "b", "c", "d"])
        #expect(try roundTrip(value) == value)
    }

    static let dayPlanJSON = """
        {"type":"object","properties":{
           "title":{"type":"string","description":"A unique and exciting title for this day plan."},
           "subtitle":{"type":"string"},"destination":{"type":"string"},
           "activities":{"type":"array","items":{"$ref":"#/$defs/Activity"},"minItems":3,"maxItems":3}},
         "required":["title","subtitle","destination","activities"],
         "x-order":["title","subtitle","destination","activities"],"additionalProperties":false,"title":"DayPlan"}
        """
    static let activityJSON = """
        {"type":"object","properties":{"type":{"$ref":"#/$defs/Kind"},"title":{"type":"string"},"description":{"type":"string"}},
         "required":["type","title","description"],"x-order":["type","title","description"],
         "additionalProperties":false,"title":"Activity"}
        """
    static let kindJSON = """
        {"type":"string","enum":["sightseeing","foodAndDining","shopping","hotelAndLodging"],"title":"Kind"}
        """
    static let itineraryBody = """
        "type":"object","properties":{
           "title":{"type":"string"},
           "destinationName":{"type":"string","enum":["Grand Canyon","Yosemite","Joshua Tree"]},
           "description":{"type":"string"},
           "rationale":{"type":"string","description":"An explanation of how the itinerary meets the user's special requests."},
           "days":{"type":"array","items":{"$ref":"#/$defs/DayPlan"},"minItems":3,"maxItems":3,"description":"A list of day-by-day plans."},
           "relatedItineraries":{"type":"array","items":{"$ref":"#/$defs/Itinerary"},"maxItems":2,
                                 "description":"Other trips a traveler might enjoy"}},
         "required":["title","destinationName","description","rationale","days","relatedItineraries"],
         "x-order":["title","destinationName","description","rationale","days","relatedItineraries"],
         "additionalProperties":false,"title":"Itinerary"
        """

    @Test func recursiveItinerary() throws {
        try expectSameJSON(Itinerary.generationSchema.jsonSchemaString(), """
            {\(Self.itineraryBody),
             "$defs":{"Activity":\(Self.activityJSON),"DayPlan":\(Self.dayPlanJSON),
                      "Itinerary":{\(Self.itineraryBody)},"Kind":\(Self.kindJSON)}}
            """)
        let activity = Activity(type: .foodAndDining, title: "Lunch", description: "Tacos")
        let day = DayPlan(title: "Day 1", subtitle: "Arrive", destination: "Yosemite", activities: [activity, activity, activity])
        let inner = Itinerary(
            title: "Short", destinationName: "Yosemite", description: "d", rationale: "r", days: [day], relatedItineraries: [])
        let trip = Itinerary(
            title: "Trip", destinationName: "Yosemite", description: "A trip", rationale: "You asked.",
            days: [day, day, day], relatedItineraries: [inner])
        #expect(try roundTrip(trip) == trip)
    }

    @Test func npcWithAssociatedValues() throws {
        try expectSameJSON(NPC.generationSchema.jsonSchemaString(), """
            {"type":"object","properties":{"name":{"type":"string"},"coffeeOrder":{"type":"string"},
               "encounter":{"$ref":"#/$defs/Encounter"}},
             "required":["name","encounter"],"x-order":["name","coffeeOrder","encounter"],
             "additionalProperties":false,"title":"NPC",
             "$defs":{"Encounter":{"anyOf":[
               {"type":"object","properties":{"orderCoffee":{"type":"string"}},"required":["orderCoffee"],
                "x-order":["orderCoffee"],"additionalProperties":false,"title":"Encounter.orderCoffee"},
               {"type":"object","properties":{"wantToTalkToManager":{"type":"object",
                  "properties":{"complaint":{"type":"string"}},"required":["complaint"],"x-order":["complaint"],
                  "additionalProperties":false,"title":"Encounter.wantToTalkToManager.Values"}},
                "required":["wantToTalkToManager"],"x-order":["wantToTalkToManager"],"additionalProperties":false,
                "title":"Encounter.wantToTalkToManager"}],
               "title":"Encounter"}}}
            """)
        let barista = NPC(name: "Ana", coffeeOrder: "flat white", encounter: .orderCoffee("flat white"))
        let karen = NPC(name: "Bo", coffeeOrder: nil, encounter: .wantToTalkToManager(complaint: "Too cold"))
        #expect(karen.generatedContent.jsonString
            == #"{"name":"Bo","coffeeOrder":null,"encounter":{"wantToTalkToManager":{"complaint":"Too cold"}}}"#
            || karen.generatedContent.jsonString == #"{"name":"Bo","encounter":{"wantToTalkToManager":{"complaint":"Too cold"}}}"#)
        #expect(try roundTrip(barista) == barista)
        #expect(try roundTrip(karen) == karen)
        let parsed = try NPC.Encounter(GeneratedContent(json: #"{"orderCoffee":"latte"}"#))
        #expect(parsed == .orderCoffee("latte"))
    }

    @Test func enumConversionErrorsNameTheCasesAndPath() throws {
        let unknown = try GeneratedContent(json: #"{"name":"Bo","encounter":{"dance":"tango"}}"#)
        #expect {
            try NPC(unknown)
        } throws: { error in
            let text = "\(error)"
            return text.contains("encounter") && text.contains("orderCoffee") && text.contains("wantToTalkToManager")
        }
        let wrongPayload = try GeneratedContent(json: #"{"name":"Bo","encounter":{"wantToTalkToManager":{"complaint":5}}}"#)
        #expect {
            try NPC(wrongPayload)
        } throws: { error in
            (error as? GeneratedContent.ConversionError)?.pathDescription == "encounter.wantToTalkToManager.complaint"
        }
        #expect(throws: GeneratedContent.ConversionError.self) { try Kind(GeneratedContent(json: #""skiing""#)) }
        #expect(try Kind(GeneratedContent(json: #""shopping""#)) == .shopping)
    }

    @Test func regexGuidesKeepThePatternText() throws {
        try expectSameJSON(RegexNames.generationSchema.jsonSchemaString(), #"""
            {"type":"object","properties":{
               "formalName":{"type":"string","pattern":"(?:Mr|Mrs) [A-Z][a-z]+","description":"A title and a last name"},
               "handle":{"type":"string","pattern":"[a-z]{2,8}\\d{2}"},
               "email":{"type":"string","pattern":"[a-z]{1,10}@[a-z]{1,10}\\.com","description":"A raw-string pattern"}},
             "required":["formalName","handle","email"],"x-order":["formalName","handle","email"],
             "additionalProperties":false,"title":"RegexNames"}
            """#)
        // Each pattern is the one Swift itself compiles from the same source.
        #expect(try Regex(#"[a-z]{2,8}\d{2}"#).wholeMatch(in: "abc42") != nil)
    }

    @Test func arrayCountGuidesAndOptionals() throws {
        try expectSameJSON(Bookshelf.generationSchema.jsonSchemaString(), """
            {"type":"object","properties":{
               "favorites":{"type":"array","items":{"type":"string"},"maxItems":3,"description":"Favorite book titles"},
               "ratings":{"type":"array","items":{"type":"integer","minimum":1,"maximum":5},"minItems":1},
               "note":{"type":"string"}},
             "required":["favorites","ratings"],"x-order":["favorites","ratings","note"],
             "additionalProperties":false,"title":"Bookshelf"}
            """)
        let shelf = Bookshelf(favorites: ["Dune"], ratings: [5, 4], note: nil)
        #expect(try roundTrip(shelf) == shelf)
        let missingNote = try Bookshelf(GeneratedContent(json: #"{"favorites":[],"ratings":[1]}"#))
        #expect(missingNote.note == nil)
    }

    @Test func toolArgumentsWithNestedEnum() async throws {
        let tool = FindContacts()
        try expectSameJSON(tool.parameters.jsonSchemaString(), """
            {"type":"object","properties":{
               "count":{"type":"integer","minimum":1,"maximum":10,"description":"The number of contacts to get"},
               "generation":{"$ref":"#/$defs/Generation","description":"The age generation of contacts"}},
             "required":["count","generation"],"x-order":["count","generation"],"additionalProperties":false,
             "title":"Arguments",
             "$defs":{"Generation":{"type":"string","enum":["babyBoomers","genX","millennial","genZ"],"title":"Generation"}}}
            """)
        let arguments = try FindContacts.Arguments(GeneratedContent(json: #"{"count":3,"generation":"genZ"}"#))
        #expect(arguments == FindContacts.Arguments(count: 3, generation: .genZ))
        #expect(try await tool.call(arguments: arguments) == "3 contacts of genZ")
    }

    @Test func publicTypesAndMemberwiseInitializers() throws {
        try expectSameJSON(PublicRecipe.generationSchema.jsonSchemaString(), """
            {"type":"object","properties":{"title":{"type":"string"},"servings":{"type":"integer"},
               "steps":{"type":"array","items":{"type":"string"}}},
             "required":["title","servings","steps"],"x-order":["title","servings","steps"],
             "additionalProperties":false,"description":"A public recipe","title":"PublicRecipe"}
            """)
        let recipe = PublicRecipe(title: "Soup", servings: 2, steps: ["Boil"])
        #expect(try roundTrip(recipe) == recipe)
    }

    @Test func skippedMembersAndTrickySyntax() throws {
        try expectSameJSON(TrickyDeclaration.generationSchema.jsonSchemaString(), """
            {"type":"object","properties":{"default":{"type":"string"},"total":{"type":"number"},
               "text":{"type":"string"},"raw":{"type":"string"},"flag":{"type":"boolean"},"count":{"type":"integer"}},
             "required":["default","total","text","raw","flag","count"],
             "x-order":["default","total","text","raw","flag","count"],"additionalProperties":false,
             "title":"TrickyDeclaration"}
            """)
        let value = TrickyDeclaration(default: "d", total: 2.5, text: "t", raw: "r", flag: true, count: 7)
        #expect(try roundTrip(value) == value)
    }

    @Test func partiallyGeneratedSnapshots() throws {
        let partial = try GeneratedContent(json: #"{"title":"Trip","days":[{"title":"Day 1","activities":[{"type":"shopping"#)
        let snapshot = try Itinerary.PartiallyGenerated(partial)
        #expect(snapshot.title == "Trip")
        #expect(snapshot.destinationName == nil)
        #expect(snapshot.days?.count == 1)
        #expect(snapshot.days?.first?.title == "Day 1")
        #expect(snapshot.days?.first?.subtitle == nil)
        #expect(snapshot.relatedItineraries == nil)
        // The id stays attached to the content it came from.
        let id = GenerationID()
        let cat = try CatProfile.PartiallyGenerated(GeneratedContent(properties: ["name": "Tom"], id: id))
        #expect(cat.id == id)
        #expect(cat.name == "Tom" && cat.age == nil)
        // A complete value converts to its partial form.
        let full = CatProfile(name: "Tom", age: 3, profile: "p").asPartiallyGenerated()
        #expect(full.age == 3 && full.profile == "p")
    }

    @Test func conversionErrorsNameThePropertyPath() throws {
        let content = try GeneratedContent(json: #"{"title":"T","destinationName":"Yosemite","description":"d","rationale":"r","days":[{"title":"x","subtitle":"s","destination":"d","activities":[{"type":"food","title":"t","description":"d"}]}],"relatedItineraries":[]}"#)
        #expect {
            try Itinerary(content)
        } throws: { error in
            let text = (error as? GeneratedContent.ConversionError)?.pathDescription
            return text == "days[0].activities[0].type"
        }
    }
}
