#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| yomi_fuzz::options(yomi_fuzz_libfuzzer::plugins(), data));
