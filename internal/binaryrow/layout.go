package binaryrow

// HeaderSizeInBits is the number of header bits before the null bits: the
// RowKind byte (BinaryRow.HEADER_SIZE_IN_BITS).
const HeaderSizeInBits = 8

// MaxInlineSize is the longest string or binary stored inline in its 8-byte
// slot (BinarySection.MAX_FIX_PART_DATA_SIZE).
const MaxInlineSize = 7

// Compact precision limits (Decimal.isCompact, Timestamp.isCompact).
const (
	MaxCompactDecimalPrecision   = 18
	MaxCompactTimestampPrecision = 3
	// MaxDecimalPrecision is the largest DECIMAL precision Paimon allows.
	MaxDecimalPrecision = 38
)

// BitSetWidthInBytes is the size of the header plus null bits of a row of the
// given arity (BinaryRow.calculateBitSetWidthInBytes).
func BitSetWidthInBytes(arity int) int {
	return ((arity + 63 + HeaderSizeInBits) / 64) * 8
}

// FixedPartSize is the size of the header and the slots of a row of the given
// arity (BinaryRow.calculateFixPartSizeInBytes); the var part starts there.
func FixedPartSize(arity int) int {
	return BitSetWidthInBytes(arity) + 8*arity
}

// arrayHeaderInBytes is BinaryArray.calculateHeaderInBytes: the 4-byte element
// count and the null bits in 4-byte words.
func arrayHeaderInBytes(n int) int {
	return 4 + ((n+31)/32)*4
}

func roundToWord(n int) int {
	return (n + 7) &^ 7
}

// IsCompactDecimal reports whether a DECIMAL of this precision is stored in
// its slot as an unscaled long.
func IsCompactDecimal(precision int) bool { return precision <= MaxCompactDecimalPrecision }

// IsCompactTimestamp reports whether a TIMESTAMP(_LTZ) of this precision is
// stored in its slot as epoch milliseconds.
func IsCompactTimestamp(precision int) bool { return precision <= MaxCompactTimestampPrecision }
