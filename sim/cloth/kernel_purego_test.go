//go:build !amd64 || purego

package cloth_test

// productKernel names the PCG product kernel this build uses (spmv_other.go).
const productKernel = "purego"
