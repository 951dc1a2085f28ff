//go:build !amd64 || purego

package sim

// productKernel names the PCG product kernel this build uses (spmv_other.go).
const productKernel = "purego"
