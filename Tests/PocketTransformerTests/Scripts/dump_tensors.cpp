// Dumps llama.cpp's tensors op by op, to find the first op where Pocket's forward pass
// leaves llama.cpp's bits (how Gemma 3's greedy golden completions were traced): llama-simple's
// greedy loop (weights repacked as by default; pass 0 as the last argument for --no-repack)
// with an eval callback that writes every contiguous F32 tensor of each evaluation to
// DIR/s<step>_<name>.bin (four int64 dimensions, then the floats); step 0 is the prompt.
// Pocket's side: `Transformer.trace` with the same names. Build it as build_greedy_ids.sh
// builds greedy_ids.cpp.
//
//     dump_tensors MODEL.gguf N_PREDICT "prompt" DIR [repack]
#include "llama.h"
#include "ggml.h"
#include "ggml-backend.h"
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
static int g_step = 0; static std::string g_dir;
static bool cb(struct ggml_tensor * t, bool ask, void *) {
    if (ask) return true;
    if (t->type != GGML_TYPE_F32) return true;
    std::vector<float> buf(ggml_nelements(t));
    if (!ggml_is_contiguous(t)) return true;
    ggml_backend_tensor_get(t, buf.data(), 0, ggml_nbytes(t));
    std::string name = t->name; for (auto & c : name) if (c == ' ' || c == '/' || c == '(' || c == ')') c = '_';
    std::string path = g_dir + "/s" + std::to_string(g_step) + "_" + name + ".bin";
    FILE * f = fopen(path.c_str(), "wb");
    int64_t ne[4] = {t->ne[0], t->ne[1], t->ne[2], t->ne[3]};
    fwrite(ne, sizeof(ne), 1, f); fwrite(buf.data(), 4, buf.size(), f); fclose(f);
    return true;
}
static void batch_set_tokens(llama_batch_ext * batch, const llama_token * tokens, int32_t n_tokens, llama_pos pos_0) {
    llama_batch_ext_clear(batch);
    for (int32_t i = 0; i < n_tokens; ++i) {
        const int32_t idx = llama_batch_ext_add_token(batch, 0, tokens[i]);
        const llama_pos pos = pos_0 + i;
        llama_batch_ext_set_pos(batch, idx, &pos);
    }
    llama_batch_ext_set_output_logits(batch, n_tokens - 1, true);
}
int main(int argc, char ** argv) {
    std::string model_path = argv[1]; int n_predict = std::stoi(argv[2]); std::string prompt = argv[3]; g_dir = argv[4];
    int repack = argc > 5 ? std::stoi(argv[5]) : 1;
    llama_backend_init();
    llama_model_params mp = llama_model_default_params(); mp.n_gpu_layers = 0; mp.use_extra_bufts = repack != 0;
    llama_model * model = llama_model_load_from_file(model_path.c_str(), mp);
    const llama_vocab * vocab = llama_model_get_vocab(model);
    const int n_prompt = -llama_tokenize(vocab, prompt.c_str(), prompt.size(), NULL, 0, true, true);
    std::vector<llama_token> toks(n_prompt);
    llama_tokenize(vocab, prompt.c_str(), prompt.size(), toks.data(), toks.size(), true, true);
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = n_prompt + n_predict - 1; cp.n_batch = n_prompt; cp.cb_eval = cb; cp.cb_eval_user_data = nullptr;
    llama_context * ctx = llama_init_from_model(model, cp);
    llama_sampler * smpl = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(smpl, llama_sampler_init_greedy());
    llama_batch_ext * batch = llama_batch_ext_init(ctx);
    int n_tokens = n_prompt;
    batch_set_tokens(batch, toks.data(), n_prompt, 0);
    printf("prompt:"); for (auto t : toks) printf(" %d", t); printf("\ngen:");
    llama_token id;
    for (int n_pos = 0; n_pos + n_tokens < n_prompt + n_predict; ) {
        if (llama_process(ctx, LLAMA_PROCESS_TYPE_DECODE, batch)) { fprintf(stderr, "eval failed\n"); return 1; }
        n_pos += n_tokens; g_step++;
        id = llama_sampler_sample(smpl, ctx, -1);
        if (llama_vocab_is_eog(vocab, id)) break;
        printf(" %d", id); fflush(stdout);
        batch_set_tokens(batch, &id, 1, n_pos); n_tokens = 1;
    }
    printf("\n");
    return 0;
}
