package dev.ringfuse.pool.format;

/** What a block holds; stored in its block pointer. Metadata types are written twice (ditto). */
public enum BlockType {
    MOS(1, true),
    BTREE_NODE(2, true),
    FILE_DATA(3, false),
    SPACE_LOG(4, true);

    public final int code;
    public final boolean metadata;

    BlockType(int code, boolean metadata) {
        this.code = code;
        this.metadata = metadata;
    }

    public static BlockType ofCode(int code) throws FormatException {
        for (BlockType t : values()) if (t.code == code) return t;
        throw new FormatException("unknown block type " + code);
    }
}
