/* The steps of B in HotSpot's x86_64 Math.log / Math.log10 / Math.pow stubs on this CPU, as
 * functions/hotspot_math.py holds them (_LOG_B_STEPS, _LOG10_B_STEPS, _POW_B_STEPS): for every float mantissa
 * m in [1, 2), rcpps(m) (times 0.43359375f in single precision for log10, 1.4453125f for pow), plus 0x8000
 * (0x2000 for pow), its top 16 (18) bits kept. Prints
 * "mantissa B-bits" where B changes; the mantissas come out as multiples of 2**11 (the top 12 bits decide).
 * rcpps is the CPU's own approximation: run this on another vendor's CPU to see its steps.
 *
 *   gcc -O1 -msse2 -o /tmp/rcpps_steps tools/java_math/rcpps_steps.c && /tmp/rcpps_steps log10  (or pow)
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <xmmintrin.h>

int main(int argc, char **argv) {
  int log10 = argc > 1 && strcmp(argv[1], "log10") == 0, pow = argc > 1 && strcmp(argv[1], "pow") == 0;
  uint32_t lh_bits = pow ? 0x3FB90000u : 0x3EDE0000u, previous = 0xFFFFFFFFu;
  float lh;
  memcpy(&lh, &lh_bits, 4);
  for (uint32_t m = 0; m < (1u << 23); m++) {
    uint32_t bits = 0x3F800000u | m, out;
    float f, r;
    memcpy(&f, &bits, 4);
    __m128 v = _mm_rcp_ss(_mm_set_ss(f));
    if (log10 || pow) v = _mm_mul_ss(v, _mm_set_ss(lh));
    r = _mm_cvtss_f32(v);
    memcpy(&out, &r, 4);
    out = pow ? (out + 0x2000u) & 0xFFFFC000u : (out + 0x8000u) & 0xFFFF0000u;
    if (out != previous) printf("%u 0x%08X\n", m, out);
    previous = out;
  }
  return 0;
}
