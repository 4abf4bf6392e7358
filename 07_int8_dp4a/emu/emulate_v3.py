# Sequential emulation of int8_gemm.cu's v3 index math (not of timing or races). Pure Python.
import random
random.seed(1)
def s8(x): x &= 0xFF; return x - 256 if x >= 128 else x
def dp4a(a, b, c):
    return c + sum(s8(a >> (8*k)) * s8(b >> (8*k)) for k in range(4))
def run(M, N, K, lda, ldb):
    A = [[random.randint(-128, 127) for _ in range(lda)] for _ in range(M)]
    B = [[random.randint(-128, 127) for _ in range(ldb)] for _ in range(N)]
    ref = [[sum(A[i][k]*B[j][k] for k in range(K)) for j in range(N)] for i in range(M)]
    C = [[None]*N for _ in range(M)]
    BM = BN = 128; BK = 32; KW = 8; HALF = 64; SROW = 132
    def load_chunk(G, rows, row, k):
        w = [0, 0, 0, 0]
        if row < rows:
            for e in range(16):
                if k + e < K: w[e // 4] |= (G[row][k + e] & 0xFF) << (8 * (e % 4))
        return w
    k_tiles = (K + BK - 1) // BK
    for tm in range((M + BM - 1) // BM):
        for tn in range((N + BN - 1) // BN):
            bm, bn = tm * BM, tn * BN
            sA = [[[0]*SROW for _ in range(KW)] for _ in range(2)]; sB = [[[0]*SROW for _ in range(KW)] for _ in range(2)]
            def store(s, buf, r, c, v):
                for i in range(4): s[buf][4*c + i][r] = v[i]
            for tid in range(256):
                cr, cc = tid // 2, tid % 2
                store(sA, 0, cr, cc, load_chunk(A, M, bm + cr, 16*cc)); store(sB, 0, cr, cc, load_chunk(B, N, bn + cr, 16*cc))
            acc = [[[0]*8 for _ in range(8)] for _ in range(256)]
            for t in range(k_tiles):
                cur = t % 2
                pre = {}
                if t + 1 < k_tiles:
                    for tid in range(256):
                        cr, cc = tid // 2, tid % 2
                        pre[tid] = (load_chunk(A, M, bm + cr, (t+1)*BK + 16*cc), load_chunk(B, N, bn + cr, (t+1)*BK + 16*cc))
                for tid in range(256):
                    tx, ty = tid % 16, tid // 16
                    for w in range(KW):
                        a = [sA[cur][w][ty*4 + i] for i in range(4)] + [sA[cur][w][HALF + ty*4 + i] for i in range(4)]
                        b = [sB[cur][w][tx*4 + i] for i in range(4)] + [sB[cur][w][HALF + tx*4 + i] for i in range(4)]
                        for i in range(8):
                            for j in range(8): acc[tid][i][j] = dp4a(a[i], b[j], acc[tid][i][j])
                if t + 1 < k_tiles:
                    for tid in range(256):
                        cr, cc = tid // 2, tid % 2
                        store(sA, cur ^ 1, cr, cc, pre[tid][0]); store(sB, cur ^ 1, cr, cc, pre[tid][1])
            for tid in range(256):
                tx, ty = tid % 16, tid // 16
                for i in range(8):
                    r = bm + (ty*4 + i if i < 4 else HALF + ty*4 + i - 4)
                    for h in range(2):
                        c0 = bn + h*HALF + tx*4
                        for e in range(4):
                            if r < M and c0 + e < N:
                                assert C[r][c0+e] is None, "written twice"
                                C[r][c0 + e] = acc[tid][i][4*h + e]
    bad = [(i, j) for i in range(M) for j in range(N) if C[i][j] != ref[i][j]]
    print(M, N, K, "bad:", len(bad), bad[:3])
run(17, 33, 65, 68, 65)
run(130, 129, 40, 40, 43)
