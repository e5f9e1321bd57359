"""Mental poker: dealing without a trusted dealer (ElGamal over ristretto255, verifiable shuffles)."""
