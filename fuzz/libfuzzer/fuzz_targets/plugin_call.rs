#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| yomi_fuzz::plugin_call(yomi_fuzz_libfuzzer::plugins(), data));
