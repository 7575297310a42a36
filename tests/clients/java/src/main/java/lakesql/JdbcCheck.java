package lakesql;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;

/**
 * MySQL Connector/J and MariaDB Connector/J, default settings, against lakesql:
 * java -cp target/classes:target/lib/* lakesql.JdbcCheck JDBC_URL TABLE.
 * Prints one line per check; exits 1 on the first failure.
 */
public final class JdbcCheck {
  private static void check(String name, Object got, Object want) {
    if (!Objects.equals(got, want)) {
      System.out.println("FAIL " + name + ": got " + got + ", want " + want);
      System.exit(1);
    }
    System.out.println("ok   " + name + ": " + got);
  }

  private static long count(Connection c, String table) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  public static void main(String[] args) throws Exception {
    String url = args[0], table = args[1];
    try (Connection a = DriverManager.getConnection(url, "root", "");
        Connection b = DriverManager.getConnection(url, "root", "")) {
      System.out.println(a.getMetaData().getDriverName() + " " + a.getMetaData().getDriverVersion()
          + ", server " + a.getMetaData().getDatabaseProductVersion());
      Statement s = a.createStatement();
      s.execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, flag BOOLEAN, n INT, v VARCHAR(20), ts DATETIME, d DECIMAL(10,2))");
      s.execute("INSERT INTO " + table + " VALUES (1, TRUE, 7, 'x', '2026-01-02 03:04:05', 1.25)");

      try (ResultSet rs = s.executeQuery("SELECT flag, n, id, v, ts, d FROM " + table)) {
        rs.next();
        ResultSetMetaData md = rs.getMetaData();
        check("BOOLEAN column getObject", rs.getObject(1).getClass().getSimpleName(), "Boolean");
        check("BOOLEAN value", rs.getObject(1), Boolean.TRUE);
        check("INT getObject", rs.getObject(2).getClass().getSimpleName(), "Integer");
        check("BIGINT getObject", rs.getObject(3).getClass().getSimpleName(), "Long");
        check("VARCHAR getObject", rs.getObject(4), "x");
        // Connector/J 8+ returns LocalDateTime, MariaDB Connector/J Timestamp (as for MySQL).
        check("DATETIME getObject", rs.getObject(5).getClass().getSimpleName(), url.startsWith("jdbc:mysql") ? "LocalDateTime" : "Timestamp");
        check("DECIMAL getObject", rs.getObject(6).toString(), "1.25");
        check("BOOLEAN column type name", md.getColumnTypeName(1), url.startsWith("jdbc:mysql") ? "BIT" : "BOOLEAN");
      }

      try (ResultSet rs = s.executeQuery("EXPLAIN SELECT * FROM " + table + " WHERE id = 1")) {
        rs.next();
        ResultSetMetaData md = rs.getMetaData();
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= md.getColumnCount(); i++) {
          sb.append(md.getColumnLabel(i)).append('=').append(rs.getObject(i)).append(' ');
        }
        check("EXPLAIN getObject of every column", rs.getLong("id"), 1L);
        System.out.println("     " + sb.toString().trim());
      }
      try (PreparedStatement p = a.prepareStatement("EXPLAIN SELECT * FROM " + table + " WHERE id = ?")) {
        p.setLong(1, 1);
        try (ResultSet rs = p.executeQuery()) {
          rs.next();
          check("prepared EXPLAIN … WHERE id = ?", rs.getObject("rows"), null);
        }
      }

      a.setAutoCommit(false);
      s.execute("INSERT INTO " + table + " VALUES (2, FALSE, 8, 'y', NULL, NULL)");
      check("uncommitted insert invisible to another connection", count(b, table), 1L);
      a.rollback();
      check("rollback: row gone", count(a, table), 1L);
      s.execute("INSERT INTO " + table + " VALUES (3, FALSE, 9, 'z', NULL, NULL)");
      a.commit();
      check("after commit the other connection sees it", count(b, table), 2L);
      a.setAutoCommit(true);

      check("UPDATE count", s.executeUpdate("UPDATE " + table + " SET v = 'w' WHERE id = 3"), 1);
      try {
        s.executeQuery("SELECT * FROM no_such_table");
        check("unknown table", "no error", "42S02");
      } catch (SQLException e) {
        check("unknown table SQLState", e.getErrorCode() + " " + e.getSQLState(), "1146 42S02");
      }
      try (ResultSet rs = s.executeQuery("SELECT VERSION()")) {
        rs.next();
        check("VERSION() = server version", rs.getString(1), a.getMetaData().getDatabaseProductVersion());
      }
    }
    metadata(url, table);
    System.out.println("PASS");
  }

  /**
   * What Metabase's sync (and DBeaver) ask through DatabaseMetaData, on a
   * connection opened with Metabase's MySQL properties (mysql.clj
   * default-connection-args: compression, UTF8 results, local session
   * state), read-only and READ UNCOMMITTED as Metabase's queries run, once
   * with the driver's default metadata implementation and once with
   * useInformationSchema=true.
   */
  private static void metadata(String url, String table) throws SQLException {
    String props = "zeroDateTimeBehavior=convertToNull&useUnicode=true&characterEncoding=UTF8&characterSetResults=UTF8"
        + "&useCompression=true&useLocalSessionState=true&useSSL=false";
    String pt = table + "_p";
    try (Connection c = DriverManager.getConnection(url, "root", "");
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE " + pt + " (k BIGINT, dt STRING, v INT COMMENT 'the value', "
          + "PRIMARY KEY (k, dt) NOT ENFORCED) COMMENT 'partitioned' PARTITIONED BY (dt)");
    }
    for (String extra : new String[] {"", "&useInformationSchema=true"}) {
      String u = url + (url.contains("?") ? "&" : "?") + props + extra;
      String mode = extra.isEmpty() ? "default metadata" : "useInformationSchema";
      try (Connection c = DriverManager.getConnection(u, "root", "")) {
        c.setReadOnly(true);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_UNCOMMITTED);
        DatabaseMetaData md = c.getMetaData();
        String cat = c.getCatalog();
        StringBuilder tables = new StringBuilder();
        try (ResultSet rs = md.getTables(cat, null, "%", new String[] {"TABLE", "VIEW"})) {
          while (rs.next()) {
            if (rs.getString("TABLE_NAME").startsWith(table)) {
              tables.append(rs.getString("TABLE_NAME")).append(':').append(rs.getString("TABLE_TYPE")).append(':')
                  .append(rs.getString("REMARKS")).append(' ');
            }
          }
        }
        check(mode + ": getTables", tables.toString().trim(), table + ":TABLE: " + pt + ":TABLE:partitioned");
        StringBuilder cols = new StringBuilder();
        try (ResultSet rs = md.getColumns(cat, null, pt, "%")) {
          while (rs.next()) {
            String remarks = rs.getString("REMARKS"); // "" or null where there is none
            cols.append(rs.getString("COLUMN_NAME")).append(':').append(rs.getString("TYPE_NAME")).append(':')
                .append(rs.getInt("NULLABLE")).append(':').append(remarks == null ? "" : remarks).append(' ');
          }
        }
        check(mode + ": getColumns", cols.toString().trim(), "k:BIGINT:0: dt:VARCHAR:0: v:INT:1:the value");
        StringBuilder pk = new StringBuilder();
        try (ResultSet rs = md.getPrimaryKeys(cat, null, pt)) {
          while (rs.next()) {
            pk.append(rs.getString("COLUMN_NAME")).append(':').append(rs.getShort("KEY_SEQ")).append(' ');
          }
        }
        check(mode + ": getPrimaryKeys (ordered by COLUMN_NAME)", pk.toString().trim(), "dt:2 k:1");
        int fks = 0;
        try (ResultSet rs = md.getImportedKeys(cat, null, pt)) {
          while (rs.next()) {
            fks++;
          }
        }
        check(mode + ": getImportedKeys", fks, 0);
        StringBuilder idx = new StringBuilder();
        try (ResultSet rs = md.getIndexInfo(cat, null, pt, false, true)) {
          while (rs.next()) {
            idx.append(rs.getString("INDEX_NAME")).append(':').append(rs.getString("COLUMN_NAME")).append(' ');
          }
        }
        check(mode + ": getIndexInfo", idx.toString().trim(), "PRIMARY:k PRIMARY:dt");
        try (Statement s = c.createStatement();
            ResultSet rs = s.executeQuery("SELECT TRUE AS `_` FROM `" + pt + "` WHERE 1 <> 1 LIMIT 0")) {
          check(mode + ": Metabase's SELECT probe", rs.next(), false);
        }
        check(mode + ": read-only connection", c.isReadOnly(), true);
      }
    }
  }
}
