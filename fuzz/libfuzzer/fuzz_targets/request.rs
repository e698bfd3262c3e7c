#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| yomi_fuzz::request(data));
