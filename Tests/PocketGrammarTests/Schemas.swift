/// Representative schemas used by several tests (and the benchmark suite's shapes). Objects
/// are closed (`additionalProperties: false`), as the schemas Pocket writes for `@Generable` types.
enum Schemas {
    static let all: [String] = [
        ##"{"type":"object","properties":{"name":{"type":"string","maxLength":40},"age":{"type":"integer","minimum":0,"maximum":20}},"required":["name","age"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","maxLength":12},"minItems":1,"maxItems":3}},"required":["tags"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"mood":{"enum":["calm","curious","sleepy"]},"score":{"type":"number","minimum":-2.5,"maximum":3.75}},"required":["mood","score"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"a":{"type":"boolean"},"b":{"type":"null"},"c":{"type":"string","maxLength":5}},"required":["a"],"additionalProperties":false}"##,
        ##"{"type":"array","items":{"type":"object","properties":{"x":{"type":"integer","minimum":-50,"maximum":50}},"required":["x"],"additionalProperties":false},"maxItems":4}"##,
        ##"{"$defs":{"Node":{"type":"object","properties":{"v":{"type":"integer","minimum":0,"maximum":9},"kids":{"type":"array","items":{"$ref":"#/$defs/Node"},"maxItems":2}},"required":["v","kids"],"additionalProperties":false}},"$ref":"#/$defs/Node"}"##,
        ##"{"anyOf":[{"type":"object","properties":{"kind":{"const":"cat"},"lives":{"type":"integer","minimum":1,"maximum":9}},"required":["kind","lives"],"additionalProperties":false},{"type":"object","properties":{"kind":{"const":"dog"}},"required":["kind"],"additionalProperties":false}]}"##,
        ##"{"type":"object","properties":{"note":{"type":"string","maxLength":30},"extra":{}},"required":["note","extra"],"additionalProperties":false}"##,
        ##"{"type":"object","properties":{"code":{"type":"string","pattern":"^[A-Z]{2}-\\d{3}$"},"tags":{"type":"array","items":{"type":"string","pattern":"[a-z]+(-[a-z]+)?","maxLength":12},"maxItems":3}},"required":["code","tags"],"additionalProperties":false}"##,
    ]
}
