#!/bin/sh
# Records the messages the Swift compiler sends to the PocketMacros plugin while it type-checks
# sample.swift.txt, into recorded-requests.bin (the frames exactly as sent). Rerun after
# changing the sample: `swift build` first, then `Tests/PocketMacroKitTests/Fixtures/record.sh`.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/sample.swift.txt" "$work/sample.swift"
cat > "$work/tee-plugin.sh" <<WRAP
#!/bin/sh
tee "$work/requests.bin" | "$root/.build/debug/PocketMacros-tool"
WRAP
chmod +x "$work/tee-plugin.sh"
cd "$work"
# The sample has deliberate errors; the compiler's exit status is not ours to check.
swiftc -typecheck -swift-version 6 -I "$root/.build/debug/Modules" -load-plugin-executable "$work/tee-plugin.sh#PocketMacros" sample.swift \
cp "$work/requests.bin" "$here/recorded-requests.bin"
echo "recorded $(wc -c < "$here/recorded-requests.bin") bytes"
