import Foundation
import PocketGrammar

/// The grammar engine measured on a vocabulary: schema compile time and mask time over a suite
/// of representative schemas, walking each one with a deterministic token sequence
/// (`pocket-bench grammar`, ``GrammarBenchmarkCommand``).
enum GrammarBenchmark {
    /// What one run measured. Encoded with the snake_case keys of `pocket-bench grammar --json`.
    struct Result: Codable, Sendable {
        /// Median time to compute one token mask, in microseconds.
        var maskMedianMicroseconds: Double
        /// 99th-percentile mask time, in microseconds.
        var maskP99Microseconds: Double
        /// Median schema compile time (import + compile), in milliseconds.
        var compileMedianMilliseconds: Double
        /// Number of schemas in the suite.
        var schemaCount: Int
        /// Tokens in the vocabulary.
        var vocabularySize: Int
        /// Masks measured.
        var maskCount: Int

        private enum CodingKeys: String, CodingKey {
            case maskMedianMicroseconds = "mask_p50_us", maskP99Microseconds = "mask_p99_us"
            case compileMedianMilliseconds = "compile_p50_ms", schemaCount = "schemas"
            case vocabularySize = "vocab_size", maskCount = "masks"
        }
    }

    /// The suite: flat objects, nested arrays of objects, enums, numeric ranges, free strings,
    /// recursive types, choices and free-form values. Objects are closed and patterns anchored,
    /// as in the schemas Pocket writes for `@Generable` types.
    static let suite: [String] = [
        ##"{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0,"maximum":20},"profile":{"type":"string"}},"required":["name","age","profile"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"suggestions":{"type":"array","items":{"type":"string"},"minItems":4,"maxItems":4}},"required":["suggestions"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"title":{"type":"string"},"days":{"type":"array","items":{"$ref":"#/$defs/Day"},"maxItems":3}},"required":["title","days"],"additionalProperties":false,"$defs":{"Day":{"type":"object","properties":{"day":{"type":"integer","minimum":1,"maximum":7},"activities":{"type":"array","items":{"type":"string"},"maxItems":3}},"required":["day","activities"],"additionalProperties":false}}}"##,
        ##"{"enum":["red","green","blue","yellow","purple"]}"##,
        ##"{"type":"object","properties":{"mood":{"enum":["calm","curious","sleepy"]},"score":{"type":"number","minimum":-5,"maximum":5}},"required":["mood","score"],"additionalProperties":false}"##,
        ##"{"type":"array","items":{"type":"object","properties":{"x":{"type":"integer","minimum":-100,"maximum":100},"y":{"type":"integer","minimum":-100,"maximum":100}},"required":["x","y"],"additionalProperties":false},"maxItems":5}"##,
        ##"{"$defs":{"Node":{"type":"object","properties":{"value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"},"maxItems":2}},"required":["value","children"],"additionalProperties":false}},"$ref":"#/$defs/Node"}"##,
        ##"{"anyOf":[{"type":"object","properties":{"kind":{"const":"cat"},"lives":{"type":"integer","minimum":1,"maximum":9}},"required":["kind","lives"],"additionalProperties":false},{"type":"object","properties":{"kind":{"const":"dog"},"name":{"type":"string"}},"required":["kind","name"],"additionalProperties":false}]}"##,
        ##"{"type":"object","properties":{"ok":{"type":"boolean"},"reason":{"type":"string","maxLength":80}},"required":["ok"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"data":{}},"required":["data"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"},"d":{"type":"string"},"e":{"type":"string"}},"required":["a","b","c","d","e"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"temperature":{"type":"number","minimum":-40,"maximum":60},"unit":{"enum":["C","F"]}},"required":["temperature","unit"],"additionalProperties":false}"##,
        ##"{"type":"array","items":{"type":"string","maxLength":20},"minItems":1,"maxItems":8}"##,
        ##"{"type":"object","properties":{"tool":{"enum":["getWeather","findContact","search"]},"arguments":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"],"additionalProperties":false}},"required":["tool","arguments"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"answer":{"type":"integer","minimum":0,"maximum":1000000}},"required":["answer"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"name":{"type":"string"},"nickname":{"type":"string"},"email":{"type":"string"}},"required":["name"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"matrix":{"type":"array","items":{"type":"array","items":{"type":"number"},"maxItems":3},"maxItems":3}},"required":["matrix"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"level":{"enum":["low","medium","high","critical"]},"tags":{"type":"array","items":{"enum":["a","b","c"]},"maxItems":3}},"required":["level","tags"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"riddle":{"type":"string"},"answers":{"type":"array","items":{"type":"object","properties":{"text":{"type":"string"},"correct":{"type":"boolean"}},"required":["text","correct"],"additionalProperties":false},"maxItems":4}},"required":["riddle","answers"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"summary":{"type":"string","maxLength":200},"sentiment":{"type":"number","minimum":-1,"maximum":1}},"required":["summary","sentiment"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"name":{"type":"string","pattern":"^[A-Z][a-z]+( [A-Z][a-z]+)?$","maxLength":40},"code":{"type":"string","pattern":"^[A-Z]{3}-\\d{4}$"}},"required":["name","code"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"email":{"type":"string","pattern":"^[a-z0-9._]+@[a-z0-9]+\\.(com|org|net)$","maxLength":60},"verified":{"const":true}},"required":["email","verified"],"additionalProperties":false}"##,
    ]

    /// Runs the suite: compiles each schema `repetitions` times, then walks it for up to
    /// `steps` tokens choosing, at each step, the allowed token that a fixed pseudo-random
    /// preference order ranks first, and times every mask.
    ///
    /// - Throws: ``GrammarError`` when a schema of the suite cannot be compiled.
    static func run(vocabulary: Vocabulary, steps: Int = 64, repetitions: Int = 5) throws -> Result {
        var compileTimes: [Double] = []
        var maskTimes: [Double] = []
        for (index, text) in suite.enumerated() {
            var grammar: CompiledGrammar?
            for _ in 0..<repetitions {
                compileTimes.append(try Machine.time { grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: text)) } * 1000)
            }
            var matcher = GrammarMatcher(grammar: grammar!, vocabulary: vocabulary)
            var mask = TokenMask(count: vocabulary.count)
            var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 | 1
            for _ in 0..<steps {
                maskTimes.append(Machine.time { matcher.fillMask(&mask) } * 1e6)
                let allowed = mask.allowedTokens.filter { !vocabulary.endOfGeneration.contains($0) }
                if allowed.isEmpty || matcher.isComplete { break }
                state = state &* 6364136223846793005 &+ 1442695040888963407
                matcher.accept(allowed[Int(state >> 33) % allowed.count])
            }
        }
        func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }
        return Result(maskMedianMicroseconds: percentile(maskTimes, 0.5), maskP99Microseconds: percentile(maskTimes, 0.99),
                      compileMedianMilliseconds: percentile(compileTimes, 0.5), schemaCount: suite.count,
                      vocabularySize: vocabulary.count, maskCount: maskTimes.count)
    }
}
