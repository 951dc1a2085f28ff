//go:build !race

package monkey

const raceEnabled = false
