# Sequential emulation of int8_gemm.cu's v5 data path for one block: the swizzled K-major tile
# copy, ldmatrix (documented map), mma.m16n8k32 .s8 (documented fragment map), the dbuf loop,
# the epilogue. Checks the index math, not timing or races.
import random, sys
random.seed(2)
BM, BN, BK, STAGES = 128, 256, 64, 4
WARPS_M, WARPS_N = 2, 4
WARP_M, WARP_N = 64, 64
MT, NT, KSTEPS = 4, 8, 2
ROW_BYTES = 64; CHUNKS = 4
A_BYTES = BM * ROW_BYTES; STAGE = A_BYTES + BN * ROW_BYTES
def swz(r, c): return c ^ ((r // (8 // CHUNKS)) % CHUNKS)
def chunk_offset(r, c): return r * ROW_BYTES + swz(r, c) * 16
def a_off(lane, ks): return chunk_offset(lane % 16, 2*ks + lane // 16)
def b_off(lane, ks): return chunk_offset(lane % 8 + 8 * (lane // 16), 2*ks + (lane // 8) % 2)
def s8(x): x &= 0xFF; return x - 256 if x >= 128 else x
def word(smem, addr): return smem[addr] | smem[addr+1] << 8 | smem[addr+2] << 16 | smem[addr+3] << 24
def ldmatrix_x4(smem, addrs):  # addrs[lane] -> regs[lane][j]
    return [[word(smem, addrs[8*j + lane // 4] + 4 * (lane % 4)) for j in range(4)] for lane in range(32)]
def mma(acc, a, b):  # acc[lane][4], a[lane][4], b[lane][2]: documented m16n8k32 .s8 map
    Am = [[0]*32 for _ in range(16)]; Bm = [[0]*8 for _ in range(32)]
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for j in range(4):
            for e in range(4): Am[g + 8*(j % 2)][4*t + 16*(j // 2) + e] = s8(a[lane][j] >> (8*e))
        for j in range(2):
            for e in range(4): Bm[4*t + 16*j + e][g] = s8(b[lane][j] >> (8*e))
    for lane in range(32):
        g, t = lane // 4, lane % 4
        for e in range(4):
            r, c = g + 8*(e // 2), 2*t + e % 2
            acc[lane][e] += sum(Am[r][k] * Bm[k][c] for k in range(32))
def run(M, N, K):
    A = [[random.randint(-128, 127) for _ in range(K)] for _ in range(M)]
    B = [[random.randint(-128, 127) for _ in range(K)] for _ in range(N)]  # N x K
    smem = [0xEE] * (STAGES * STAGE)
    block_m = block_n = 0
    k_tiles = (K + BK - 1) // BK
    def copy_tile(base, G, rows, row0, k0, nrows):
        for tid in range(256):
            r, c = tid // 4, tid % 4
            for p in range(nrows // 64):
                row = row0 + r + 64*p; dst = base + chunk_offset(r, c) + p * 64 * ROW_BYTES
                for e in range(16):
                    k = k0 + 16*c + e
                    smem[dst + e] = (G[row][k] & 0xFF) if row < rows and k < K else 0
    def load_k_tile(t):
        st = (t % STAGES) * STAGE
        copy_tile(st, A, M, block_m, t*BK, BM); copy_tile(st + A_BYTES, B, N, block_n, t*BK, BN)
    def load_frags(sA, sB, warp_m0, warp_n0, ks):
        a = []
        for i in range(MT):
            a.append(ldmatrix_x4(smem, [sA + (warp_m0 + 16*i) * ROW_BYTES + a_off(l, ks) for l in range(32)]))
        b = [None]*NT
        for j in range(NT // 2):
            r = ldmatrix_x4(smem, [sB + (warp_n0 + 16*j) * ROW_BYTES + b_off(l, ks) for l in range(32)])
            b[2*j] = [[r[l][0], r[l][1]] for l in range(32)]; b[2*j+1] = [[r[l][2], r[l][3]] for l in range(32)]
        return a, b
    C = [[None]*N for _ in range(M)]
    for warp in range(8):   # warps one after another: the copies are re-done per warp (same data)
        warp_m0, warp_n0 = warp // WARPS_N * WARP_M, warp % WARPS_N * WARP_N
        acc = [[[[0]*4 for _ in range(32)] for _ in range(NT)] for _ in range(MT)]
        for t in range(STAGES - 1):
            if t < k_tiles: load_k_tile(t)
        fr = [load_frags(0, A_BYTES, warp_m0, warp_n0, 0), None]
        for t in range(k_tiles):
            sA = (t % STAGES) * STAGE; sB = sA + A_BYTES
            for ks in range(KSTEPS):
                cur, nxt = ks % 2, (ks % 2) ^ 1
                if ks == KSTEPS - 1:
                    if t + STAGES - 1 < k_tiles: load_k_tile(t + STAGES - 1)
                    if t + 1 < k_tiles:
                        nA = ((t + 1) % STAGES) * STAGE
                        fr[nxt] = load_frags(nA, nA + A_BYTES, warp_m0, warp_n0, 0)
                else:
                    fr[nxt] = load_frags(sA, sB, warp_m0, warp_n0, ks + 1)
                a, b = fr[cur]
                for i in range(MT):
                    for j in range(NT): mma(acc[i][j], a[i], b[j])
        for lane in range(32):
            g, tq = lane // 4, lane % 4
            for i in range(MT):
                for j in range(NT):
                    for h in range(2):
                        r = block_m + warp_m0 + 16*i + g + 8*h; c = block_n + warp_n0 + 8*j + 2*tq
                        for e in range(2):
                            if r < M and c + e < N:
                                assert C[r][c+e] is None; C[r][c+e] = acc[i][j][lane][2*h + e]
    bad = 0
    for i in range(M):
        for j in range(N):
            want = sum(A[i][k] * B[j][k] for k in range(K))
            if C[i][j] != want:
                bad += 1
                if bad < 4: print("  C(%d,%d) = %s, want %d" % (i, j, C[i][j], want))
    print(M, N, K, "k_tiles", k_tiles, "bad:", bad)
run(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
