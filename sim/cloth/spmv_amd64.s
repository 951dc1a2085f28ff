//go:build amd64 && !purego

#include "textflag.h"

// func blockRows32(rowPtr, col []int32, val [][9]float32, oppPtr, oppCol []int32, oppVal []float32, s, out []vec3f32, lo, hi int)
//
// Per block: v = s[col] = (x, y, z, 0) and the block's rows as unaligned
// 4-float loads at byte offsets 0, 12 and 20 (b0..b3, b3..b6, b5..b8,
// all inside the 36-byte block), multiplied by (x, y, z, 0), (x, y, z, 0)
// and (0, x, y, z): lanes that hold a neighbouring entry meet a zero.
// The three row accumulators are summed across lanes at the end of the row.
TEXT ·blockRows32(SB), NOSPLIT, $0-208
	MOVQ rowPtr_base+0(FP), R8
	MOVQ col_base+24(FP), R9
	MOVQ val_base+48(FP), R10
	MOVQ oppPtr_base+72(FP), R11
	MOVQ oppCol_base+96(FP), R12
	MOVQ oppVal_base+120(FP), R13
	MOVQ s_base+144(FP), SI
	MOVQ out_base+168(FP), DI
	MOVQ lo+192(FP), AX
	MOVQ hi+200(FP), BX
	CMPQ AX, BX
	JGE  done

row:
	XORPS   X0, X0
	XORPS   X1, X1
	XORPS   X2, X2
	XORPS   X3, X3
	MOVLQSX (R8)(AX*4), CX
	MOVLQSX 4(R8)(AX*4), DX
	CMPQ    CX, DX
	JGE     opp

blk:
	MOVLQSX (R9)(CX*4), R14
	SHLQ    $4, R14
	MOVUPS  (SI)(R14*1), X4
	LEAQ    (CX)(CX*8), R15
	MOVUPS  (R10)(R15*4), X5
	MULPS   X4, X5
	ADDPS   X5, X0
	MOVUPS  12(R10)(R15*4), X6
	MULPS   X4, X6
	ADDPS   X6, X1
	PSLLO   $4, X4
	MOVUPS  20(R10)(R15*4), X7
	MULPS   X4, X7
	ADDPS   X7, X2
	INCQ    CX
	CMPQ    CX, DX
	JLT     blk

opp:
	MOVLQSX (R11)(AX*4), CX
	MOVLQSX 4(R11)(AX*4), DX
	CMPQ    CX, DX
	JGE     sum

oloop:
	MOVLQSX (R12)(CX*4), R14
	SHLQ    $4, R14
	MOVUPS  (SI)(R14*1), X4
	MOVSS   (R13)(CX*4), X5
	SHUFPS  $0, X5, X5
	MULPS   X5, X4
	ADDPS   X4, X3
	INCQ    CX
	CMPQ    CX, DX
	JLT     oloop

sum:
	// X0 = (a0..a3), X1 = (b0..b3), X2 = (c0..c3): out = (Σa, Σb, Σc, 0) + X3.
	MOVAPS   X0, X4
	UNPCKLPS X1, X4   // (a0, b0, a1, b1)
	UNPCKHPS X1, X0   // (a2, b2, a3, b3)
	ADDPS    X4, X0   // (a0+a2, b0+b2, a1+a3, b1+b3)
	XORPS    X5, X5
	MOVAPS   X2, X6
	UNPCKLPS X5, X6   // (c0, 0, c1, 0)
	UNPCKHPS X5, X2   // (c2, 0, c3, 0)
	ADDPS    X6, X2   // (c0+c2, 0, c1+c3, 0)
	MOVAPS   X0, X4
	MOVLHPS  X2, X4   // (a0+a2, b0+b2, c0+c2, 0)
	MOVHLPS  X0, X2   // (a1+a3, b1+b3, c1+c3, 0)
	ADDPS    X2, X4
	ADDPS    X3, X4
	MOVQ     AX, R14
	SHLQ     $4, R14
	MOVUPS   X4, (DI)(R14*1)
	INCQ     AX
	CMPQ     AX, BX
	JLT      row

done:
	RET
