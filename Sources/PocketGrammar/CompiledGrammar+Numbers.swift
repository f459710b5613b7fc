// Numbers, digit by digit: a number is refused as soon as no completion of it lies within the
// node's bounds (and, for integers with `multipleOf`, is a multiple of the step).

extension CompiledGrammar {
    func bounds(_ node: Int32) -> (minimum: Double?, maximum: Double?, isInteger: Bool) {
        guard node >= 0 else { return (nil, nil, false) }
        switch kinds[Int(node)] {
        case .integer(let minimum, let maximum, _): return (minimum, maximum, true)
        case .number(let minimum, let maximum): return (minimum, maximum, false)
        default: return (nil, nil, false)
        }
    }

    func startNumber(_ node: Int32, _ byte: UInt8) -> NumberState? {
        var state = NumberState(node: node)
        if byte == UInt8(ascii: "-") {
            state.negative = true
            state.phase = 0
        } else if (0x30...0x39).contains(byte) {
            state.integerDigits = 1
            state.magnitude = Double(byte - 0x30)
            state.leadingZero = byte == 0x30
        } else {
            return nil
        }
        return isViable(state) ? state : nil
    }

    func extend(_ state: NumberState, _ byte: UInt8) -> NumberState? {
        var next = state
        let isInteger = bounds(state.node).isInteger
        if (0x30...0x39).contains(byte) {
            let digit = Double(byte - 0x30)
            switch state.phase {
            case 0:
                next.phase = 1
                next.integerDigits = 1
                next.magnitude = digit
                next.leadingZero = byte == 0x30
            case 1:
                guard !state.leadingZero, state.integerDigits < NumberState.maximumDigits else { return nil }
                next.integerDigits += 1
                next.magnitude = state.magnitude * 10 + digit
            case 2, 3:
                guard state.fractionDigits < NumberState.maximumDigits else { return nil }
                next.phase = 3
                next.fractionDigits += 1
                next.magnitude = state.magnitude + digit * pow10(-Int(next.fractionDigits))
            default: return nil
            }
        } else if byte == UInt8(ascii: "."), state.phase == 1, !isInteger {
            next.phase = 2
        } else {
            return nil
        }
        return isViable(next) ? next : nil
    }

    func pow10(_ e: Int) -> Double {
        var r = 1.0
        if e >= 0 { for _ in 0..<e { r *= 10 } } else { for _ in 0..<(-e) { r /= 10 } }
        return r
    }

    /// Whether some completion of the number lies within the node's bounds.
    func isViable(_ s: NumberState) -> Bool {
        let (minimum, maximum, isInteger) = bounds(s.node)
        let step = multiple(s.node)
        if minimum == nil && maximum == nil && step == 1 { return true }
        // Ranges of magnitudes the finished number can have.
        var ranges: [(Double, Double)] = []
        switch s.phase {
        case 0:
            ranges.append((0, pow10(Int(NumberState.maximumDigits))))
        case 1:
            ranges.append((s.magnitude, s.magnitude))
            if !isInteger { ranges.append((s.magnitude, s.magnitude + 1)) }
            if !s.leadingZero {
                var scale = 10.0
                for _ in 0..<Int(NumberState.maximumDigits - s.integerDigits) {
                    ranges.append((s.magnitude * scale, (s.magnitude + 1) * scale - (isInteger ? 1 : 0)))
                    scale *= 10
                }
            }
        default:
            let step = pow10(-Int(s.fractionDigits))
            ranges.append((s.magnitude, s.magnitude + (s.fractionDigits < NumberState.maximumDigits ? step : 0)))
        }
        let lower = minimum ?? -.infinity, upper = maximum ?? .infinity
        for (a, b) in ranges {
            // A negative sign must lead to a value below zero: "-0" is never produced.
            let (lo, hi) = s.negative ? (-b, a == 0 ? -Double.leastNonzeroMagnitude : -a) : (a, b)
            let l = max(lo, lower), h = min(hi, upper)
            if l <= h && (step == 1 || (l / step).rounded(.up) * step <= h) { return true }
        }
        return false
    }

    /// The `multipleOf` of an integer node (1: none).
    func multiple(_ node: Int32) -> Double {
        if node >= 0, case .integer(_, _, let step) = kinds[Int(node)] { return step }
        return 1
    }

    func numberIsComplete(_ s: NumberState) -> Bool {
        guard s.phase == 1 || s.phase == 3 else { return false }
        let (minimum, maximum, _) = bounds(s.node)
        if s.negative && s.magnitude == 0 { return false }
        let value = s.negative ? -s.magnitude : s.magnitude
        let step = multiple(s.node)
        return value >= (minimum ?? -.infinity) && value <= (maximum ?? .infinity)
            && (step == 1 || value.truncatingRemainder(dividingBy: step) == 0)
    }
}
