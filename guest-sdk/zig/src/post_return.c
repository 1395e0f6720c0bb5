// Post-return functions that replace wit-bindgen's (its are weak): the
// batch a source's `poll` or a transform's `apply` returns lives in the
// SDK's buffers, which it reuses for the next call instead of letting the
// generated glue free() them. So a batch goes to the host without being
// copied, and a poll allocates nothing once the buffers have grown. An
// error's message is the SDK's too (copycat.zig: staticMessage).
#include <stdint.h>

#ifdef COPYCAT_ZIG_SOURCE
__attribute__((__export_name__("cabi_post_copycat:connector/source-task@0.3.0#poll")))
void __wasm_export_exports_copycat_connector_source_task_poll_post_return(uint8_t *ret) {
    (void) ret;
}
#endif

#ifdef COPYCAT_ZIG_TRANSFORM
__attribute__((__export_name__("cabi_post_copycat:transform/transformer@0.1.0#apply")))
void __wasm_export_exports_copycat_transform_transformer_apply_post_return(uint8_t *ret) {
    (void) ret;
}
#endif
