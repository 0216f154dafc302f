//! FarmHash's `Fingerprint64`, the function behind SQL's `FARM_FINGERPRINT`.
//!
//! GoogleSQL's "Hash functions" page defines `FARM_FINGERPRINT` as the `Fingerprint64` function
//! of Google's open-source FarmHash library, and promises that its output for an input never
//! changes. FarmHash defines `Fingerprint64` as its portable 64-bit hash (the "na" variant,
//! CityHash-derived): inputs of up to 64 bytes are mixed by one of three short-input paths,
//! longer inputs in 64-byte blocks with a final pass over the last 64 bytes.
//!
//! Written here from the algorithm's description because the Rust ports need std and the core
//! is no_std. Invariants: every read is little-endian and every arithmetic step wraps (the
//! algorithm is defined on unsigned 64-bit words), so the result is the same on every target;
//! the tests below compare with values published by Google's documentation and by the
//! reference implementation for every length class (0-16, 17-32, 33-64 and longer).

const K0: u64 = 0xc3a5_c85c_97cb_3127;
const K1: u64 = 0xb492_b66f_be98_f273;
const K2: u64 = 0x9ae1_6a3b_2f90_404f;

fn fetch64(s: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&s[at..at + 8]);
    u64::from_le_bytes(b)
}

fn fetch32(s: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&s[at..at + 4]);
    u64::from(u32::from_le_bytes(b))
}

fn shift_mix(v: u64) -> u64 {
    v ^ (v >> 47)
}

fn hash_len16(u: u64, v: u64, mul: u64) -> u64 {
    let mut a = (u ^ v).wrapping_mul(mul);
    a ^= a >> 47;
    let mut b = (v ^ a).wrapping_mul(mul);
    b ^= b >> 47;
    b.wrapping_mul(mul)
}

fn len_0_to_16(s: &[u8]) -> u64 {
    let len = s.len();
    let mul = K2.wrapping_add(len as u64 * 2);
    if len >= 8 {
        let a = fetch64(s, 0).wrapping_add(K2);
        let b = fetch64(s, len - 8);
        let c = b.rotate_right(37).wrapping_mul(mul).wrapping_add(a);
        let d = a.rotate_right(25).wrapping_add(b).wrapping_mul(mul);
        return hash_len16(c, d, mul);
    }
    if len >= 4 {
        let a = fetch32(s, 0);
        return hash_len16((len as u64).wrapping_add(a << 3), fetch32(s, len - 4), mul);
    }
    if len > 0 {
        // Three bytes (first, middle, last) in 32-bit arithmetic, then widened.
        let (a, b, c) = (
            u32::from(s[0]),
            u32::from(s[len >> 1]),
            u32::from(s[len - 1]),
        );
        let y = a.wrapping_add(b << 8);
        let z = (len as u32).wrapping_add(c << 2);
        return shift_mix(u64::from(y).wrapping_mul(K2) ^ u64::from(z).wrapping_mul(K0))
            .wrapping_mul(K2);
    }
    K2
}

fn len_17_to_32(s: &[u8]) -> u64 {
    let len = s.len();
    let mul = K2.wrapping_add(len as u64 * 2);
    let a = fetch64(s, 0).wrapping_mul(K1);
    let b = fetch64(s, 8);
    let c = fetch64(s, len - 8).wrapping_mul(mul);
    let d = fetch64(s, len - 16).wrapping_mul(K2);
    hash_len16(
        a.wrapping_add(b)
            .rotate_right(43)
            .wrapping_add(c.rotate_right(30))
            .wrapping_add(d),
        a.wrapping_add(b.wrapping_add(K2).rotate_right(18))
            .wrapping_add(c),
        mul,
    )
}

fn len_33_to_64(s: &[u8]) -> u64 {
    let len = s.len();
    let mul = K2.wrapping_add(len as u64 * 2);
    let a = fetch64(s, 0).wrapping_mul(K2);
    let b = fetch64(s, 8);
    let c = fetch64(s, len - 8).wrapping_mul(mul);
    let d = fetch64(s, len - 16).wrapping_mul(K2);
    let y = a
        .wrapping_add(b)
        .rotate_right(43)
        .wrapping_add(c.rotate_right(30))
        .wrapping_add(d);
    let z = hash_len16(
        y,
        a.wrapping_add(b.wrapping_add(K2).rotate_right(18))
            .wrapping_add(c),
        mul,
    );
    let e = fetch64(s, 16).wrapping_mul(mul);
    let f = fetch64(s, 24);
    let g = y.wrapping_add(fetch64(s, len - 32)).wrapping_mul(mul);
    let h = z.wrapping_add(fetch64(s, len - 24)).wrapping_mul(mul);
    hash_len16(
        e.wrapping_add(f)
            .rotate_right(43)
            .wrapping_add(g.rotate_right(30))
            .wrapping_add(h),
        e.wrapping_add(f.wrapping_add(a).rotate_right(18))
            .wrapping_add(g),
        mul,
    )
}

/// The 32-byte mix at `at` with seeds `a` and `b`: a pair of words.
fn weak32(s: &[u8], at: usize, mut a: u64, mut b: u64) -> (u64, u64) {
    let (w, x, y, z) = (
        fetch64(s, at),
        fetch64(s, at + 8),
        fetch64(s, at + 16),
        fetch64(s, at + 24),
    );
    a = a.wrapping_add(w);
    b = b.wrapping_add(a).wrapping_add(z).rotate_right(21);
    let c = a;
    a = a.wrapping_add(x).wrapping_add(y);
    b = b.wrapping_add(a.rotate_right(44));
    (a.wrapping_add(z), b.wrapping_add(c))
}

/// FarmHash `Fingerprint64` of `s`.
pub fn fingerprint64(s: &[u8]) -> u64 {
    let len = s.len();
    if len <= 16 {
        return len_0_to_16(s);
    }
    if len <= 32 {
        return len_17_to_32(s);
    }
    if len <= 64 {
        return len_33_to_64(s);
    }
    const SEED: u64 = 81;
    let mut x = SEED;
    let mut y = SEED.wrapping_mul(K1).wrapping_add(113);
    let mut z = shift_mix(y.wrapping_mul(K2).wrapping_add(113)).wrapping_mul(K2);
    let mut v = (0u64, 0u64);
    let mut w = (0u64, 0u64);
    x = x.wrapping_mul(K2).wrapping_add(fetch64(s, 0));
    // Whole 64-byte blocks before the last (partial or whole) one.
    let end = (len - 1) / 64 * 64;
    let last64 = end + ((len - 1) & 63) - 63;
    let mut at = 0;
    loop {
        x = x
            .wrapping_add(y)
            .wrapping_add(v.0)
            .wrapping_add(fetch64(s, at + 8))
            .rotate_right(37)
            .wrapping_mul(K1);
        y = y
            .wrapping_add(v.1)
            .wrapping_add(fetch64(s, at + 48))
            .rotate_right(42)
            .wrapping_mul(K1);
        x ^= w.1;
        y = y.wrapping_add(v.0).wrapping_add(fetch64(s, at + 40));
        z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(K1);
        v = weak32(s, at, v.1.wrapping_mul(K1), x.wrapping_add(w.0));
        w = weak32(
            s,
            at + 32,
            z.wrapping_add(w.1),
            y.wrapping_add(fetch64(s, at + 16)),
        );
        core::mem::swap(&mut z, &mut x);
        at += 64;
        if at == end {
            break;
        }
    }
    let mul = K1.wrapping_add((z & 0xff) << 1);
    let at = last64;
    w.0 = w.0.wrapping_add(((len - 1) & 63) as u64);
    v.0 = v.0.wrapping_add(w.0);
    w.0 = w.0.wrapping_add(v.0);
    x = x
        .wrapping_add(y)
        .wrapping_add(v.0)
        .wrapping_add(fetch64(s, at + 8))
        .rotate_right(37)
        .wrapping_mul(mul);
    y = y
        .wrapping_add(v.1)
        .wrapping_add(fetch64(s, at + 48))
        .rotate_right(42)
        .wrapping_mul(mul);
    x ^= w.1.wrapping_mul(9);
    y = y
        .wrapping_add(v.0.wrapping_mul(9))
        .wrapping_add(fetch64(s, at + 40));
    z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(mul);
    v = weak32(s, at, v.1.wrapping_mul(mul), x.wrapping_add(w.0));
    w = weak32(
        s,
        at + 32,
        z.wrapping_add(w.1),
        y.wrapping_add(fetch64(s, at + 16)),
    );
    core::mem::swap(&mut z, &mut x);
    hash_len16(
        hash_len16(v.0, w.0, mul)
            .wrapping_add(shift_mix(y).wrapping_mul(K0))
            .wrapping_add(z),
        hash_len16(v.1, w.1, mul).wrapping_add(x),
        mul,
    )
}

#[cfg(test)]
mod tests {
    use super::fingerprint64;

    fn fp(s: &str) -> i64 {
        fingerprint64(s.as_bytes()) as i64
    }

    #[test]
    fn matches_the_values_google_publishes() {
        // GoogleSQL's hash functions page (FARM_FINGERPRINT of CONCAT(x, y, z)).
        assert_eq!(fp("1footrue"), -1_541_654_101_129_638_711);
        assert_eq!(fp("2applefalse"), 2_794_438_866_806_483_259);
        assert_eq!(fp("3true"), -4_880_158_226_897_771_312);
    }

    #[test]
    fn matches_the_reference_implementation_for_every_length_class() {
        // Prefixes of one text, fingerprinted by Google's C++ FarmHash (through its Python
        // binding): every branch (0-16, 17-32, 33-64, one and several 64-byte blocks).
        let text = "The quick brown fox jumps over the lazy dog. ".repeat(6);
        let cases: &[(usize, i64)] = &[
            (0, -7_286_425_919_675_154_353),
            (1, 1_366_698_271_136_253_306),
            (2, 6_802_249_652_779_214_323),
            (3, -8_824_672_173_256_051_715),
            (4, -797_828_528_184_215_899),
            (5, 8_805_132_910_519_014_279),
            (7, -343_606_922_379_908_217),
            (8, 5_102_859_526_078_303_239),
            (9, 5_536_152_759_197_313_107),
            (15, 9_032_017_524_180_936_103),
            (16, 4_320_848_957_565_769_301),
            (17, -4_061_352_233_596_342_851),
            (24, 6_702_341_905_823_656_245),
            (31, -8_963_653_081_731_734_701),
            (32, -5_307_099_777_350_626_718),
            (33, -981_808_865_693_223_978),
            (48, -6_420_750_521_607_893_694),
            (63, -947_765_381_833_828_062),
            (64, -8_304_030_206_579_935_072),
            (65, 8_330_986_144_681_106_620),
            (100, -1_991_481_384_505_188_558),
            (127, -3_692_768_463_606_686_069),
            (128, 6_548_702_730_867_532_314),
            (129, -353_075_450_497_946_926),
            (200, 640_913_882_323_733_241),
            (257, -8_977_141_307_766_327_811),
        ];
        for (n, want) in cases {
            assert_eq!(fp(&text[..*n]), *want, "length {n}");
        }
    }
}
