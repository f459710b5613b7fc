// swift-tools-version: 6.1
// A package that depends on Pocket the way an app does: by version, from a git URL. `.ci/consumer-check`
// copies it next to a tagged clone of the checkout and points `POCKET_URL` there.
import PackageDescription

let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "POCKET_URL", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(name: "Consumer", dependencies: [.product(name: "FoundationModels", package: "Pocket")]),
    ]
)
