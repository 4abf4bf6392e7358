/* tests/unit_list.h - every CPU unit test, one UNIT(name) line each (no include guard: it is
 * an X-macro list, included with different definitions of UNIT). */
/* conversions and RNG: tests/test_convert.c */
UNIT(f16_exhaustive)
UNIT(f16_from_f32_edges)
UNIT(bf16_rounding_edges)
UNIT(tf32_rounding_edges)
UNIT(tf32_split_error_bound)
UNIT(fp8_conversions)
UNIT(i8_saturation)
UNIT(f16_from_f64_and_fma)
UNIT(rng_determinism)
/* references, tolerances and the checker: tests/test_verify.c */
UNIT(ref_gemm_matches_naive_loops)
UNIT(ref_gemm_int8_exact)
UNIT(ref_gemm_sampled_equals_full)
UNIT(tolerance_table_scales_with_k)
UNIT(tolerance_catches_lost_k_slice)
UNIT(checker_accepts_correct_result)
UNIT(checker_rejects_corrupted_element)
UNIT(checker_rejects_nan)
UNIT(checker_rejects_unwritten_element)
UNIT(checker_integers_exact)
UNIT(checker_sampled_catches_bad_row)
UNIT(rel_fro_error_known_values)
/* the GEMM driver's inputs (distributions, host rounding): tests/test_gemm_inputs.c */
UNIT(gemm_inputs_uniform_unchanged)
UNIT(gemm_inputs_tf32_rounded_on_host)
UNIT(gemm_inputs_wide_range)
/* convolution shapes, layouts and reference: tests/test_conv_ref.c */
UNIT(conv_shape_check)
UNIT(conv_tensor_index_and_to_nhwc)
UNIT(conv_ref_matches_im2col_gemm)
UNIT(conv_ref_sampled_equals_full)
/* the shared-memory XOR swizzle (common/swizzle.h, chapter 05): tests/test_swizzle.c */
UNIT(swizzle_permutes_rows_with_period_8)
UNIT(swizzle_ldmatrix_conflict_free)
UNIT(swizzle_store_phases_conflict_free)
UNIT(swizzle_documented_example)
