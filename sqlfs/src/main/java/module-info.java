/** A filesystem whose files live in a SQL database: SQLite embedded, or PostgreSQL shared by several mounts. */
module dev.ringfuse.sqlfs {
    requires transitive dev.ringfuse;
    requires java.sql;
    requires com.zaxxer.hikari;
    requires org.xerial.sqlitejdbc;
    requires org.postgresql.jdbc;
    exports dev.ringfuse.sqlfs;
}
