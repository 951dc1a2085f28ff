// Package fem holds the stateless element kernels of Bender & Deul's cloth
// model (Bender & Deul 2012 §4.2 and appendix A): a triangle's rest data
// (ElemRest: shape-function derivatives and area), its corotated frame
// (CorotatedFrame, the 2D polar decomposition), strain, stress, nodal
// forces, the corotated stiffness and the stress (geometric) stiffness;
// and the isometric bending stencil of an interior edge (Bergou, Wardetzky,
// Harmon, Zorin & Grinspun 2006 §4; EdgeBendingQ) with its energy. Each
// function cites its formula; package cloth assembles them.
package fem
