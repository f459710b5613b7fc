import Foundation
import Testing
import Pocket

@Suite struct GeneratedContentConversionTests {
    typealias Itinerary = Handwritten.Itinerary
    typealias DayPlan = Handwritten.DayPlan
    typealias Activity = Handwritten.Activity
    typealias ActivityKind = Handwritten.ActivityKind
    @Test func standardTypesConvertBothWays() throws {
        #expect(try String(GeneratedContent(kind: .string("x"))) == "x")
        #expect(try Int(GeneratedContent(kind: .number(42))) == 42)
        #expect(try Double(GeneratedContent(kind: .number(2.5))) == 2.5)
        #expect(try Float(GeneratedContent(kind: .number(0.5))) == 0.5)
        #expect(try Decimal(GeneratedContent(kind: .number(0.1))) == Decimal(string: "0.1"))
        #expect(try Bool(GeneratedContent(kind: .bool(true))) == true)
        #expect(try [Int](GeneratedContent(json: "[1,2,3]")) == [1, 2, 3])
        #expect(try Int?(GeneratedContent(kind: .null)) == nil)
        #expect(try Int?(GeneratedContent(kind: .number(7))) == 7)

        #expect(7.generatedContent.jsonString == "7")
        #expect(Decimal(string: "0.1")!.generatedContent.jsonString == "0.1")
        #expect(Float(0.5).generatedContent.jsonString == "0.5")
        #expect([true, false].generatedContent.jsonString == "[true,false]")
        #expect((nil as String?).generatedContent.jsonString == "null")
    }

    @Test func integerConversionRejectsFractionsAndOverflow() {
        #expect(throws: GeneratedContent.ConversionError.self) { try Int(GeneratedContent(kind: .number(1.5))) }
        #expect(throws: GeneratedContent.ConversionError.self) { try Int(GeneratedContent(kind: .number(1e30))) }
    }

    @Test func wrongKindNamesExpectedAndFound() {
        do {
            _ = try String(GeneratedContent(kind: .number(3)))
            Issue.record("converted a number to a string")
        } catch let error as GeneratedContent.ConversionError {
            #expect(error.path == [])
            #expect(error.expected == "a string")
            #expect(error.description == "Cannot convert generated content at the top level: expected a string, found the number 3")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func propertyAccess() throws {
        let content = try GeneratedContent(json: #"{"name":"Ada","age":36,"nick":null}"#)
        #expect(try content.value(String.self, forProperty: "name") == "Ada")
        let age: Int = try content.value(forProperty: "age")
        #expect(age == 36)
        #expect(try content.value(String?.self, forProperty: "nick") == nil)
        #expect(try content.value(String?.self, forProperty: "absent") == nil)
        let name: String? = try content.value(forProperty: "name")
        #expect(name == "Ada")
    }

    @Test func missingPropertyNamesThePath() throws {
        let content = try GeneratedContent(json: #"{"name":"Ada"}"#)
        do {
            _ = try content.value(Int.self, forProperty: "age")
            Issue.record("read a missing property")
        } catch let error as GeneratedContent.ConversionError {
            #expect(error.path == ["age"])
            #expect(error.isMissing)
            #expect(error.description == "Cannot convert generated content at age: expected a value of type Int, the property is missing")
        }
    }

    @Test func propertyOfNonStructureIsAnError() {
        do {
            _ = try GeneratedContent(kind: .array([])).value(Int.self, forProperty: "age")
            Issue.record("read a property of an array")
        } catch let error as GeneratedContent.ConversionError {
            #expect(error.description == "Cannot convert generated content at the top level: expected a structure with the property \"age\", found an array of 0 elements")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func nestedErrorsCarryTheFullPath() throws {
        let json = #"{"title":"Rome","days":[{"day":1,"activities":[{"title":"Forum","kind":"food"}]},{"day":2,"activities":[{"title":"Swim","kind":"swimming"}]}],"relatedItineraries":[]}"#
        do {
            _ = try Itinerary(GeneratedContent(json: json))
            Issue.record("accepted an unknown activity kind")
        } catch let error as GeneratedContent.ConversionError {
            #expect(error.path == ["days", "[1]", "activities", "[0]", "kind"])
            #expect(error.pathDescription == "days[1].activities[0].kind")
            #expect(error.description == #"Cannot convert generated content at days[1].activities[0].kind: expected one of "sightseeing", "food", found the string "swimming""#)
        }
    }

    @Test func recursiveTypesRoundTrip() throws {
        let rome = Itinerary(
            title: "Rome",
            days: [DayPlan(day: 1, activities: [Activity(title: "Forum", kind: .sightseeing, cost: 16)], note: nil)],
            relatedItineraries: [Itinerary(title: "Naples", days: [], relatedItineraries: [])])
        let json = rome.generatedContent.jsonString
        #expect(json == #"{"title":"Rome","days":[{"day":1,"activities":[{"title":"Forum","kind":"sightseeing","cost":16}]}],"relatedItineraries":[{"title":"Naples","days":[],"relatedItineraries":[]}]}"#)
        #expect(try Itinerary(GeneratedContent(json: json)) == rome)
    }

    @Test func partialContentFillsPartiallyGeneratedTypes() throws {
        let partial = try GeneratedContent(json: #"{"title":"Ro"#)
        let snapshot = try Itinerary.PartiallyGenerated(partial)
        #expect(snapshot.title == "Ro")
        #expect(snapshot.days == nil)

        let deeper = try GeneratedContent(json: #"{"title":"Rome","days":[{"day":1,"activities":[{"title":"Fo"#)
        let days = try Itinerary.PartiallyGenerated(deeper).days
        #expect(days?.count == 1)
        #expect(days?.first?.activities?.first?.title == "Fo")
        #expect(days?.first?.activities?.first?.kind == nil)
    }

    @Test func asPartiallyGeneratedKeepsEveryValue() {
        let plan = DayPlan(day: 3, activities: [Activity(title: "Pizza", kind: .food, cost: nil)], note: "rain")
        let partial = plan.asPartiallyGenerated()
        #expect(partial.day == 3)
        #expect(partial.note == "rain")
        #expect(partial.activities?.first?.kind == .food)
        #expect([1, 2].asPartiallyGenerated() == [1, 2])
        #expect("s".asPartiallyGenerated() == "s")
    }
}

@Suite struct StreamingConversionTests {
    typealias Itinerary = Handwritten.Itinerary
    typealias DayPlan = Handwritten.DayPlan
    typealias Activity = Handwritten.Activity
    typealias ActivityKind = Handwritten.ActivityKind
    @Test func cutEnumerationCaseReadsAsNotYetArrived() throws {
        let partial = try GeneratedContent(json: #"{"title":"Forum","kind":"sight"#)
        let snapshot = try Activity.PartiallyGenerated(partial)
        #expect(snapshot.title == "Forum")
        #expect(snapshot.kind == nil)
        let later = try Activity.PartiallyGenerated(GeneratedContent(json: #"{"title":"Forum","kind":"sightseeing""#))
        #expect(later.kind == .sightseeing)
    }

    @Test func completeValuesStillConvertStrictly() throws {
        let complete = try GeneratedContent(json: #"{"title":"Forum","kind":"swimming"}"#)
        #expect(throws: GeneratedContent.ConversionError.self) { try Activity.PartiallyGenerated(complete) }
        // A finished bad value inside an unfinished structure is still an error.
        let partial = try GeneratedContent(json: #"{"kind":"swimming","title":"Fo"#)
        #expect(throws: GeneratedContent.ConversionError.self) { try Activity.PartiallyGenerated(partial) }
    }

    @Test func cutLastArrayElementIsLeftOut() throws {
        let partial = try GeneratedContent(json: #"["food","sightseeing","fo"#)
        #expect(try [ActivityKind](partial) == [.food, .sightseeing])
        #expect(throws: GeneratedContent.ConversionError.self) {
            try [ActivityKind](GeneratedContent(json: #"["food","fo"]"#))
        }
    }
}
