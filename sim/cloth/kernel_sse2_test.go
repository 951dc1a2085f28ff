//go:build amd64 && !purego

package cloth_test

// productKernel names the PCG product kernel this build uses (spmv_amd64.s).
const productKernel = "sse2"
