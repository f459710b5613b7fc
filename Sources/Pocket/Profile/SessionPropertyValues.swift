import Foundation

/// A container for a session's property values, as in Apple's FoundationModels (iOS/macOS 27).
///
/// Every ``LanguageModelSession`` has one (``LanguageModelSession/properties``). Profiles,
/// dynamic instructions and tools read and write it through ``LanguageModelSession/SessionProperty``;
/// the app changes it directly, and the next request's evaluation sees the change:
///
/// ```swift
/// struct PirateModeKey: SessionPropertyKey {
///     static let defaultValue = false
/// }
///
/// extension SessionPropertyValues {
///     var pirateMode: Bool {
///         get { self[PirateModeKey.self] }
///         set { self[PirateModeKey.self] = newValue }
///     }
/// }
///
/// session.properties.pirateMode = true   // the next request is evaluated with it
/// ```
///
/// ``history`` is the session's transcript without the instructions entry the profile defines;
/// setting it replaces the conversation the next request continues.
public final class SessionPropertyValues: @unchecked Sendable {
    // `@unchecked`: every stored value is reached only under `lock`.
    private let lock = NSLock()
    private var values: [ObjectIdentifier: Any] = [:]
    /// The history of a container that belongs to no session.
    private var detachedHistory: [Transcript.Entry] = []
    /// The session whose transcript ``history`` reads and writes.
    private weak var session: LanguageModelSession?

    /// Creates an empty container that belongs to no session (its ``history`` is its own).
    init() {}

    /// Makes ``history`` the transcript of `session`.
    func attach(to session: LanguageModelSession) {
        lock.withLock { self.session = session }
    }

    /// The container evaluation and hooks of the current request read: bound by the session
    /// while it evaluates its profile, runs hooks and calls tools.
    @TaskLocal static var current: SessionPropertyValues?

    /// Accesses the value stored for the given session property key: its default value until
    /// one is stored.
    ///
    /// - Parameter key: The session property key type whose value to read or write.
    public subscript<K>(key: K.Type) -> K.Value where K: SessionPropertyKey {
        get {
            lock.withLock { values[ObjectIdentifier(key)] } as? K.Value ?? K.defaultValue
        }
        set {
            lock.withLock { values[ObjectIdentifier(key)] = newValue }
        }
    }

    /// The session's conversation without the instructions entry the profile defines.
    ///
    /// Setting it replaces the conversation the next request continues; the instructions entry
    /// is kept (and re-evaluated at the next request). Changing early entries means the model
    /// re-reads the conversation from the first changed entry on, so trim sparingly.
    public var history: [Transcript.Entry] {
        get {
            guard let session = lock.withLock({ self.session }) else { return lock.withLock { detachedHistory } }
            return Self.history(of: session.transcript)
        }
        set {
            guard let session = lock.withLock({ self.session }) else {
                lock.withLock { detachedHistory = newValue }
                return
            }
            session.replaceHistory(with: newValue)
        }
    }

    /// `transcript`'s entries after a leading instructions entry.
    static func history(of transcript: Transcript) -> [Transcript.Entry] {
        var entries = Array(transcript)
        if case .instructions = entries.first { entries.removeFirst() }
        return entries
    }
}

/// A protocol for defining a custom session property key.
///
/// ``SessionPropertyEntry()`` writes the key and the property for you; by hand, extend
/// ``SessionPropertyValues`` with a property that reads and writes `self[YourKey.self]`, then
/// read it with ``LanguageModelSession/SessionProperty``.
public protocol SessionPropertyKey: SendableMetatype {
    /// The type of value that represent this property key.
    associatedtype Value
    /// The default value of the property key.
    static var defaultValue: Value { get }
}

extension LanguageModelSession {
    /// A property wrapper that provides access to properties from within profiles, dynamic
    /// instructions, and tools.
    ///
    /// ```swift
    /// struct CompactingProfile: LanguageModelSession.DynamicProfile {
    ///     @SessionProperty(\.history) var history
    ///
    ///     var body: some LanguageModelSession.DynamicProfile {
    ///         Profile { Instructions("Be brief.") }
    ///             .onResponse { if history.count > 100 { history = Array(history.suffix(50)) } }
    ///     }
    /// }
    /// ```
    ///
    /// The wrapper reads the properties of the session that is evaluating the profile, running
    /// its hooks or calling its tools. Read anywhere else (say, in a test that evaluates a body
    /// directly), it reads a container of its own, which starts at the default values.
    @propertyWrapper
    public struct SessionProperty<Value>: @unchecked Sendable {
        // `@unchecked`: the key path is immutable and the containers lock their storage.
        private let keyPath: ReferenceWritableKeyPath<SessionPropertyValues, Value>
        /// Where the wrapper reads and writes outside a session.
        private let detached = SessionPropertyValues()

        /// Creates a session property with the specified key path.
        ///
        /// - Parameter keyPath: The key path to the property.
        public init(_ keyPath: ReferenceWritableKeyPath<SessionPropertyValues, Value>) {
            self.keyPath = keyPath
        }

        /// The wrapped value of this property wrapper.
        public var wrappedValue: Value {
            get { (SessionPropertyValues.current ?? detached)[keyPath: keyPath] }
            nonmutating set { (SessionPropertyValues.current ?? detached)[keyPath: keyPath] = newValue }
        }
    }
}

extension Tool {
    /// A property wrapper that provides access to a session property from within a tool.
    public typealias SessionProperty = LanguageModelSession.SessionProperty
}

extension DynamicInstructions {
    /// A property wrapper that provides access to a session property from within dynamic
    /// instructions.
    public typealias SessionProperty = LanguageModelSession.SessionProperty
}

/// Declares a custom session property: a key type with the initializer as its default value,
/// and accessors that read and write it in the session's ``SessionPropertyValues``.
///
/// ```swift
/// extension SessionPropertyValues {
///     @SessionPropertyEntry var tone: String = "calm"
/// }
///
/// struct TonedProfile: LanguageModelSession.DynamicProfile {
///     @SessionProperty(\.tone) var tone
///     var body: some LanguageModelSession.DynamicProfile {
///         Profile { Instructions("Answer in a \(tone) tone.") }
///     }
/// }
/// // session.properties.tone = "pirate"
/// ```
///
/// Write `var name: Type = defaultValue`: the type annotation and the default are required.
@attached(accessor)
@attached(peer, names: prefixed(__Key_))
public macro SessionPropertyEntry() = #externalMacro(module: "PocketMacros", type: "SessionPropertyEntryMacro")
