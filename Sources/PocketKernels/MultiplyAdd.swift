// Multiply-add as the target does it best.
//
// The standard library's `addProduct`/`addingProduct` are *fused* multiply-adds. On a target
// whose CPU has no FMA instruction (x86-64's baseline, which is what a build of Pocket as a
// versioned dependency gets) each one becomes a call to the C library's `fmaf`, one per lane:
// measured 20× slower than a multiply then an add. So the kernels call these instead: fused
// where the target has the instruction (`POCKET_FMA`, set by Package.swift for the AVX2 and
// AVX-512 tiers; every arm64 CPU), a multiply then an add elsewhere. Within one build every
// kernel and its scalar reference round the same way, so they still agree bit for bit.

extension SIMD where Scalar: FloatingPoint {
    /// Adds `a · b` to each lane: fused where the target has FMA, else a multiply then an add.
    @inlinable @inline(__always)
    package mutating func multiplyAdd(_ a: Self, _ b: Self) {
        #if POCKET_FMA || arch(arm64)
        addProduct(a, b)
        #else
        self = self + a * b
        #endif
    }

    /// Adds `a · b` to each lane, `a` the same for every lane (see ``multiplyAdd(_:_:)-(Self,_)``).
    @inlinable @inline(__always)
    package mutating func multiplyAdd(_ a: Scalar, _ b: Self) {
        #if POCKET_FMA || arch(arm64)
        addProduct(a, b)
        #else
        self = self + a * b
        #endif
    }

    /// `self + a · b`: fused where the target has FMA, else a multiply then an add.
    @inlinable @inline(__always)
    package func plusProduct(_ a: Self, _ b: Self) -> Self {
        #if POCKET_FMA || arch(arm64)
        addingProduct(a, b)
        #else
        self + a * b
        #endif
    }
}

extension FloatingPoint {
    /// `self + a · b`: fused where the target has FMA, else a multiply then an add.
    @inlinable @inline(__always)
    package func plusProduct(_ a: Self, _ b: Self) -> Self {
        #if POCKET_FMA || arch(arm64)
        addingProduct(a, b)
        #else
        self + a * b
        #endif
    }
}

/// Whether this build's multiply-adds are fused (see the top of this file).
package enum MultiplyAdd {
    /// True where the target has FMA (`POCKET_FMA`, arm64): ``SIMD/multiplyAdd(_:_:)-(Self,_)``
    /// rounds once, as llama.cpp's x86 and arm64 builds do.
    package static var isFused: Bool {
        #if POCKET_FMA || arch(arm64)
        true
        #else
        false
        #endif
    }
}
