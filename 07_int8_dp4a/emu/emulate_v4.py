# Sequential emulation of int8_gemm.cu's v4 index math: k-slab tiles, WMMA fragments as logical
# 16x16 matrices (row_major A, col_major B, ldm = 16), the ring of stages, the epilogue.
import random, sys
random.seed(3)
BM, BN, BK, STAGES = 128, 128, 64, 4
WARPS_N = 4; WARP_M, WARP_N = 64, 32; FM, FN = 4, 2; SLABS = 4
A_SLAB, B_SLAB = (BM + 2) * 16, (BN + 2) * 16
A_BYTES, B_BYTES = SLABS * A_SLAB, SLABS * B_SLAB
STAGE = A_BYTES + B_BYTES
def s8(x): x &= 0xFF; return x - 256 if x >= 128 else x
def run(M, N, K):
    A = [[random.randint(-128, 127) for _ in range(K)] for _ in range(M)]
    B = [[random.randint(-128, 127) for _ in range(K)] for _ in range(N)]
    C = [[None]*N for _ in range(M)]
    for tm in range((M + BM - 1) // BM):
        for tn in range((N + BN - 1) // BN):
            bm, bn = tm*BM, tn*BN
            smem = [0xEE] * (STAGES * STAGE)
            k_tiles = (K + BK - 1) // BK
            def copy(base, G, rows, row0, k0, nrows, slab):
                for p in range(nrows * SLABS // 256):
                    for tid in range(256):
                        i = tid + p*256; r, c = i // SLABS, i % SLABS
                        dst = base + c*slab + 16*r
                        for e in range(16):
                            k = k0 + 16*c + e
                            smem[dst + e] = (G[row0 + r][k] & 0xFF) if row0 + r < rows and k < K else 0
            def load_stage(t):
                st = (t % STAGES) * STAGE
                copy(st, A, M, bm, t*BK, BM, A_SLAB); copy(st + A_BYTES, B, N, bn, t*BK, BN, B_SLAB)
            for t in range(STAGES - 1):
                if t < k_tiles: load_stage(t)
            acc = {}
            for t in range(k_tiles):
                if t + STAGES - 1 < k_tiles: load_stage(t + STAGES - 1)
                sA = (t % STAGES) * STAGE; sB = sA + A_BYTES
                for warp in range(8):
                    wm0, wn0 = warp // WARPS_N * WARP_M, warp % WARPS_N * WARP_N
                    for s in range(SLABS):
                        for i in range(FM):
                            pa = sA + s*A_SLAB + (wm0 + 16*i)*16
                            assert pa % 32 == 0
                            for j in range(FN):
                                pb = sB + s*B_SLAB + (wn0 + 16*j)*16
                                assert pb % 32 == 0
                                for r in range(16):
                                    for n in range(16):
                                        key = (warp, i, j, r, n)
                                        acc[key] = acc.get(key, 0) + sum(s8(smem[pa + r*16 + k]) * s8(smem[pb + n*16 + k]) for k in range(16))
            for warp in range(8):
                wm0, wn0 = warp // WARPS_N * WARP_M, warp % WARPS_N * WARP_N
                for i in range(FM):
                    for j in range(FN):
                        for lane in range(32):
                            for h in range(2):
                                r, c = lane // 4 + 8*h, 4*(lane % 4)
                                for e in range(4):
                                    gr, gc = bm + wm0 + 16*i + r, bn + wn0 + 16*j + c + e
                                    if gr < M and gc < N:
                                        assert C[gr][gc] is None; C[gr][gc] = acc.get((warp, i, j, r, c + e), 0)
    bad = sum(1 for i in range(M) for j in range(N) if C[i][j] != sum(A[i][k]*B[j][k] for k in range(K)))
    print(M, N, K, "bad:", bad)
run(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
