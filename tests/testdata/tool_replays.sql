-- Connect and schema-sync statements of MySQL tools, replayed by
-- tests/server_tools_test.go against a server with database {db} holding
-- tables orders (composite key, partitioned) and plain. Each block:
--   -- @ TOOL: where it comes from
--   the statement ({db} is substituted) [| expected result columns, comma-separated] [| rows>0]
--     [| args=a,b: run as a server-side prepared statement with these arguments]
--     [| error=N: must fail with MySQL error N]
-- Each must be answered as MySQL answers it: success (with those columns),
-- or the error MySQL gives (or 1235 for a feature lakesql lacks); the test
-- checks the rows that describe the tables against the truth.

-- @ sqlalchemy: dialects/mysql/base.py _detect_charset / initialize
SELECT VERSION()

-- @ sqlalchemy: base.py get_isolation_level
SELECT @@transaction_isolation

-- @ sqlalchemy: base.py _fetch_setting (sql_mode, lower_case_table_names)
SHOW VARIABLES LIKE 'sql_mode' | Variable_name,Value | rows>0

-- @ dbeaver-style / mysql CLI: collations filtered
SHOW COLLATION LIKE 'utf8mb4_0900_bin' | Collation,Charset,Id,Default,Compiled,Sortlen,Pad_attribute | rows>0

-- @ sqlalchemy: base.py _fetch_setting
SHOW VARIABLES LIKE 'lower_case_table_names' | Variable_name,Value | rows>0

-- @ sqlalchemy: base.py _detect_collations
SHOW COLLATION | Collation,Charset,Id,Default,Compiled,Sortlen,Pad_attribute | rows>0

-- @ sqlalchemy: base.py _get_default_schema_name
SELECT DATABASE()

-- @ sqlalchemy: base.py get_schema_names
SHOW schemas | Database | rows>0

-- @ sqlalchemy: base.py get_table_names
SHOW FULL TABLES FROM `{db}` | Tables_in_{db},Table_type | rows>0

-- @ sqlalchemy: base.py has_table
SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = '{db}' AND TABLE_NAME = 'orders' | TABLE_NAME | rows>0

-- @ sqlalchemy: base.py _show_create_table (reflection)
SHOW CREATE TABLE `{db}`.`orders` | Table,Create Table | rows>0

-- @ sqlalchemy: pymysql/mysqldb _detect_charset
SHOW VARIABLES LIKE 'character_set%' | Variable_name,Value | rows>0

-- @ connector/j: ConnectionImpl.loadServerVariables (8.x, one query)
SELECT @@session.auto_increment_increment AS auto_increment_increment, @@character_set_client AS character_set_client, @@character_set_connection AS character_set_connection, @@character_set_results AS character_set_results, @@character_set_server AS character_set_server, @@collation_server AS collation_server, @@collation_connection AS collation_connection, @@init_connect AS init_connect, @@interactive_timeout AS interactive_timeout, @@license AS license, @@lower_case_table_names AS lower_case_table_names, @@max_allowed_packet AS max_allowed_packet, @@net_write_timeout AS net_write_timeout, @@performance_schema AS performance_schema, @@sql_mode AS sql_mode, @@system_time_zone AS system_time_zone, @@time_zone AS time_zone, @@transaction_isolation AS transaction_isolation, @@wait_timeout AS wait_timeout

-- @ connector/j: DatabaseMetaDataUsingInfoSchema.getTables
SELECT TABLE_SCHEMA AS TABLE_CAT, NULL AS TABLE_SCHEM, TABLE_NAME, CASE WHEN TABLE_TYPE = 'BASE TABLE' THEN CASE WHEN TABLE_SCHEMA = 'mysql' OR TABLE_SCHEMA = 'performance_schema' THEN 'SYSTEM TABLE' ELSE 'TABLE' END WHEN TABLE_TYPE = 'TEMPORARY' THEN 'LOCAL_TEMPORARY' ELSE TABLE_TYPE END AS TABLE_TYPE, TABLE_COMMENT AS REMARKS, NULL AS TYPE_CAT, NULL AS TYPE_SCHEM, NULL AS TYPE_NAME, NULL AS SELF_REFERENCING_COL_NAME, NULL AS REF_GENERATION FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = '{db}' HAVING TABLE_TYPE IN ('LOCAL TEMPORARY','TABLE','VIEW',null,null) ORDER BY TABLE_TYPE, TABLE_SCHEMA, TABLE_NAME | TABLE_CAT,TABLE_SCHEM,TABLE_NAME,TABLE_TYPE,REMARKS,TYPE_CAT,TYPE_SCHEM,TYPE_NAME,SELF_REFERENCING_COL_NAME,REF_GENERATION | rows>0

-- @ connector/j: DatabaseMetaDataUsingInfoSchema.getPrimaryKeys
SELECT TABLE_SCHEMA AS TABLE_CAT, NULL AS TABLE_SCHEM, TABLE_NAME, COLUMN_NAME, SEQ_IN_INDEX AS KEY_SEQ, 'PRIMARY' AS PK_NAME FROM INFORMATION_SCHEMA.STATISTICS WHERE TABLE_SCHEMA LIKE '{db}' AND TABLE_NAME LIKE 'orders' AND INDEX_NAME='PRIMARY' ORDER BY TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX | TABLE_CAT,TABLE_SCHEM,TABLE_NAME,COLUMN_NAME,KEY_SEQ,PK_NAME | rows>0

-- @ connector/j: DatabaseMetaDataUsingInfoSchema.getIndexInfo
SELECT TABLE_SCHEMA AS TABLE_CAT, NULL AS TABLE_SCHEM, TABLE_NAME, NON_UNIQUE,TABLE_SCHEMA AS INDEX_QUALIFIER, INDEX_NAME,3 AS TYPE, SEQ_IN_INDEX AS ORDINAL_POSITION, COLUMN_NAME,COLLATION AS ASC_OR_DESC, CARDINALITY, NULL AS PAGES, NULL AS FILTER_CONDITION FROM INFORMATION_SCHEMA.STATISTICS WHERE TABLE_SCHEMA LIKE '{db}' AND TABLE_NAME LIKE 'orders'ORDER BY NON_UNIQUE, INDEX_NAME, SEQ_IN_INDEX | TABLE_CAT,TABLE_SCHEM,TABLE_NAME,NON_UNIQUE,INDEX_QUALIFIER,INDEX_NAME,TYPE,ORDINAL_POSITION,COLUMN_NAME,ASC_OR_DESC,CARDINALITY,PAGES,FILTER_CONDITION | rows>0

-- @ connector/j: DatabaseMetaDataUsingInfoSchema.getImportedKeys
SELECT A.REFERENCED_TABLE_SCHEMA AS PKTABLE_CAT, NULL AS PKTABLE_SCHEM, A.REFERENCED_TABLE_NAME AS PKTABLE_NAME, A.REFERENCED_COLUMN_NAME AS PKCOLUMN_NAME, A.TABLE_SCHEMA AS FKTABLE_CAT, NULL AS FKTABLE_SCHEM, A.TABLE_NAME AS FKTABLE_NAME, A.COLUMN_NAME AS FKCOLUMN_NAME, A.ORDINAL_POSITION AS KEY_SEQ, 3 AS UPDATE_RULE, 3 AS DELETE_RULE, A.CONSTRAINT_NAME AS FK_NAME, (SELECT CONSTRAINT_NAME FROM INFORMATION_SCHEMA.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = A.REFERENCED_TABLE_SCHEMA AND TABLE_NAME = A.REFERENCED_TABLE_NAME AND CONSTRAINT_TYPE IN ('UNIQUE','PRIMARY KEY') LIMIT 1) AS PK_NAME,7 AS DEFERRABILITY FROM INFORMATION_SCHEMA.KEY_COLUMN_USAGE A JOIN INFORMATION_SCHEMA.TABLE_CONSTRAINTS B USING (CONSTRAINT_NAME, TABLE_NAME) WHERE B.CONSTRAINT_TYPE = 'FOREIGN KEY' AND A.TABLE_SCHEMA LIKE '{db}' AND A.TABLE_NAME='orders' AND A.REFERENCED_TABLE_SCHEMA IS NOT NULL ORDER BY A.REFERENCED_TABLE_SCHEMA, A.REFERENCED_TABLE_NAME, A.ORDINAL_POSITION | PKTABLE_CAT,PKTABLE_SCHEM,PKTABLE_NAME,PKCOLUMN_NAME,FKTABLE_CAT,FKTABLE_SCHEM,FKTABLE_NAME,FKCOLUMN_NAME,KEY_SEQ,UPDATE_RULE,DELETE_RULE,FK_NAME,PK_NAME,DEFERRABILITY

-- @ connector/j: DatabaseMetaDataUsingInfoSchema.getColumnPrivileges
SELECT TABLE_SCHEMA AS TABLE_CAT, NULL AS TABLE_SCHEM, TABLE_NAME, COLUMN_NAME, NULL AS GRANTOR, GRANTEE, PRIVILEGE_TYPE AS PRIVILEGE, IS_GRANTABLE FROM INFORMATION_SCHEMA.COLUMN_PRIVILEGES WHERE TABLE_SCHEMA LIKE '{db}' AND TABLE_NAME ='orders' AND COLUMN_NAME LIKE '%' ORDER BY COLUMN_NAME, PRIVILEGE_TYPE | TABLE_CAT,TABLE_SCHEM,TABLE_NAME,COLUMN_NAME,GRANTOR,GRANTEE,PRIVILEGE,IS_GRANTABLE

-- @ connector/j: DatabaseMetaDataUsingInfoSchema.getProcedures
SELECT ROUTINE_SCHEMA AS PROCEDURE_CAT, NULL AS PROCEDURE_SCHEM, ROUTINE_NAME AS PROCEDURE_NAME, NULL AS RESERVED_1, NULL AS RESERVED_2, NULL AS RESERVED_3, ROUTINE_COMMENT AS REMARKS, CASE WHEN ROUTINE_TYPE = 'PROCEDURE' THEN 1 WHEN ROUTINE_TYPE='FUNCTION' THEN 2 ELSE 0 END AS PROCEDURE_TYPE, ROUTINE_NAME AS SPECIFIC_NAME FROM INFORMATION_SCHEMA.ROUTINES WHERE ROUTINE_SCHEMA LIKE '{db}' ORDER BY ROUTINE_SCHEMA, ROUTINE_NAME, ROUTINE_TYPE | PROCEDURE_CAT,PROCEDURE_SCHEM,PROCEDURE_NAME,RESERVED_1,RESERVED_2,RESERVED_3,REMARKS,PROCEDURE_TYPE,SPECIFIC_NAME

-- @ mariadb connector/odbc: MADB catalog columns (COLUMN_TYPE parsing)
SELECT TABLE_SCHEMA AS TABLE_CAT, NULL AS TABLE_SCHEM, TABLE_NAME, COLUMN_NAME, UCASE(IF(COLUMN_TYPE LIKE '%(%)%', CONCAT(SUBSTRING(COLUMN_TYPE,1, LOCATE('(',COLUMN_TYPE) - 1 ), SUBSTRING(COLUMN_TYPE,1+locate(')',COLUMN_TYPE))), COLUMN_TYPE )) AS TYPE_NAME, NUMERIC_SCALE DECIMAL_DIGITS, IF(CHARACTER_OCTET_LENGTH IS NOT NULL, NULL, 10) AS NUM_PREC_RADIX, IF(DATA_TYPE='timestamp', 1, IF(IS_NULLABLE='YES',1,IF(EXTRA='auto_increment', 1, 0))) AS NULLABLE, COLUMN_COMMENT AS REMARKS FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = '{db}' AND TABLE_NAME = 'orders' ORDER BY ORDINAL_POSITION | TABLE_CAT,TABLE_SCHEM,TABLE_NAME,COLUMN_NAME,TYPE_NAME,DECIMAL_DIGITS,NUM_PREC_RADIX,NULLABLE,REMARKS | rows>0

-- @ pgloader (mysql source): sql/list-all-columns.sql (MySQL 8.0 names unaliased information_schema columns in upper case)
select c.table_name, t.table_comment, c.column_name, c.column_comment, c.data_type, c.column_type, c.column_default, c.is_nullable, c.extra from information_schema.columns c join information_schema.tables t using(table_schema, table_name) where c.table_schema = '{db}' and t.table_type = 'BASE TABLE' order by table_name, ordinal_position | TABLE_NAME,TABLE_COMMENT,COLUMN_NAME,COLUMN_COMMENT,DATA_TYPE,COLUMN_TYPE,COLUMN_DEFAULT,IS_NULLABLE,EXTRA | rows>0

-- @ metabase: drivers/mysql sql-jdbc.sync/db-default-timezone
SELECT @@GLOBAL.time_zone AS global_tz, @@system_time_zone AS system_tz, time_format(   timediff(      now(), convert_tz(now(), @@GLOBAL.time_zone, '+00:00')   ),   '%H:%i' ) AS 'offset' | global_tz,system_tz,offset | rows>0

-- @ grafana: public/app/plugins/datasource/mysql/mySqlMetaQuery.ts showDatabases
SELECT DISTINCT TABLE_SCHEMA from information_schema.TABLES where TABLE_TYPE != 'SYSTEM VIEW' ORDER BY TABLE_SCHEMA | TABLE_SCHEMA | rows>0

-- @ grafana: mySqlMetaQuery.ts buildTableQuery (no dataset: the connection's database)
SELECT table_name FROM information_schema.tables WHERE table_schema = database() ORDER BY table_name | TABLE_NAME | rows>0

-- @ grafana: mySqlMetaQuery.ts buildColumnQuery type=time
SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = database() AND table_name = 'plain' AND data_type IN ('timestamp','datetime','bigint','int','double','float') ORDER BY column_name | COLUMN_NAME,DATA_TYPE | rows>0

-- @ grafana: mySqlMetaQuery.ts buildColumnQuery type=metric (STRING/VARCHAR keys must be listed)
SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'ddl' AND table_name = 'orders' AND data_type IN ('text','tinytext','mediumtext','longtext','varchar','char') ORDER BY column_name | COLUMN_NAME,DATA_TYPE | rows>0

-- @ grafana: mySqlMetaQuery.ts buildColumnQuery type=value
SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'ddl' AND table_name = 'orders' AND data_type IN ('bigint','int','smallint','mediumint','tinyint','double','decimal','float') AND column_name <> 'dt' ORDER BY column_name | COLUMN_NAME,DATA_TYPE | rows>0

-- @ adminer: engines() (keeps the Engine of rows whose Support is YES or DEFAULT)
SHOW ENGINES | Engine,Support,Comment,Transactions,XA,Savepoints | rows>0

-- @ adminer: logged_user()
SELECT USER() | USER() | rows>0

-- @ phpMyAdmin-style host info: charsets
SHOW CHARACTER SET | Charset,Description,Default collation,Maxlen | rows>0

-- @ dbeaver: plugins/org.jkiss.dbeaver.ext.mysql/.../model/MySQLCatalog.java TableCache.prepareLookupStatement
SHOW FULL TABLES FROM `{db}` | Tables_in_{db},Table_type | rows>0

-- @ dbeaver: MySQLCatalog.java TableCache.prepareLookupStatement (one table)
SHOW FULL TABLES FROM `{db}` LIKE 'orders' | Tables_in_{db},Table_type | rows>0

-- @ dbeaver: MySQLCatalog.java TableCache.prepareChildrenStatement (columns)
SELECT * FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='{db}' AND TABLE_NAME='orders' ORDER BY ORDINAL_POSITION | rows>0

-- @ dbeaver: MySQLCatalog.java IndexCache.prepareObjectsStatement
SELECT * FROM information_schema.STATISTICS WHERE TABLE_SCHEMA='{db}' AND TABLE_NAME='orders' ORDER BY INDEX_NAME,SEQ_IN_INDEX | rows>0

-- @ dbeaver: MySQLCatalog.java ConstraintCache.prepareObjectsStatement
SELECT kc.CONSTRAINT_NAME,kc.TABLE_NAME,kc.COLUMN_NAME,kc.ORDINAL_POSITION FROM INFORMATION_SCHEMA.KEY_COLUMN_USAGE kc WHERE kc.TABLE_SCHEMA='{db}' AND kc.REFERENCED_TABLE_NAME IS NULL AND kc.TABLE_NAME='orders' ORDER BY kc.CONSTRAINT_NAME,kc.ORDINAL_POSITION | CONSTRAINT_NAME,TABLE_NAME,COLUMN_NAME,ORDINAL_POSITION | rows>0

-- @ dbeaver: MySQLCatalog.java ProceduresCache.prepareLookupStatement
SELECT * FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA='{db}' ORDER BY ROUTINE_NAME

-- @ dbeaver: MySQLCatalog.java TriggerCache.prepareObjectsStatement
SHOW FULL TRIGGERS FROM `{db}`

-- @ dbeaver: MySQLCatalog.java EventCache.prepareObjectsStatement
SELECT * FROM information_schema.EVENTS WHERE EVENT_SCHEMA='{db}'

-- Metabase (metabase/metabase src/metabase/driver/mysql.clj and
-- src/metabase/driver/sql_jdbc/sync/describe_database.clj): connection test,
-- sync (tables through JDBC getTables, then a SELECT probe per table, fields
-- and foreign keys through information_schema), privileges, uploads.

-- @ metabase: mysql.clj database-supports? :metadata/table-writable-check (partial-revokes-enabled?)
SHOW VARIABLES LIKE 'partial_revokes'; | Variable_name,Value | rows>0

-- @ metabase: mysql.clj get-global-variable for insert-into! (uploads use LOAD DATA LOCAL when it is ON)
show global variables like 'local_infile' | Variable_name,Value | rows>0

-- @ metabase: mysql.clj current-user-table-privileges (database name)
SELECT DATABASE() | DATABASE() | rows>0

-- @ metabase: mysql.clj current-user-table-privileges (table names)
SHOW TABLES | Tables_in_{db} | rows>0

-- @ metabase: mysql.clj privilege-grants-for-user (parse-grant reads GRANT … ON … TO …)
SHOW GRANTS FOR CURRENT_USER() | rows>0

-- @ metabase: describe_database.clj simple-select-probe-query (have-select-privilege?, per table)
SELECT TRUE AS `_` FROM `orders` WHERE 1 <> 1 LIMIT 0 | _

-- @ metabase: mysql.clj describe-fields-sql (HoneySQL, MySQL dialect, the database as parameter)
SELECT `c`.`column_name` AS `name`, `c`.`ordinal_position` - 1 AS `database-position`, NULL AS `table-schema`, `c`.`table_name` AS `table-name`, IF(`column_type` = 'tinyint(1)', 'BIT', UPPER(`c`.`data_type`)) AS `database-type`, `c`.`extra` = 'auto_increment' AS `database-is-auto-increment`, ((`column_default` IS NULL) OR (LOWER(`column_default`) = 'null')) AND (`is_nullable` = 'NO') AND NOT (`c`.`extra` = 'auto_increment') AS `database-required`, `c`.`column_key` = 'PRI' AS `pk?`, `is_nullable` = 'YES' AS `database-is-nullable`, IF(LOWER(`column_default`) = 'null', NULL, `column_default`) AS `database-default`, (`generation_expression` IS NOT NULL) AND (`generation_expression` <> ?) AS `database-is-generated`, NULLIF(`c`.`column_comment`, '') AS `field-comment` FROM `information_schema`.`columns` AS `c` WHERE c.table_schema not in ('information_schema','performance_schema','sys','mysql') AND c.table_name not in ('innodb_table_stats', 'innodb_index_stats') AND (`c`.`table_schema` = ?) ORDER BY `c`.`table_name` ASC, `c`.`ordinal_position` ASC | name,database-position,table-schema,table-name,database-type,database-is-auto-increment,database-required,pk?,database-is-nullable,database-default,database-is-generated,field-comment | rows>0 | args=,{db}

-- @ metabase: mysql.clj describe-fks-sql
SELECT NULL AS `pk-table-schema`, `a`.`referenced_table_name` AS `pk-table-name`, `a`.`referenced_column_name` AS `pk-column-name`, NULL AS `fk-table-schema`, `a`.`table_name` AS `fk-table-name`, `a`.`column_name` AS `fk-column-name` FROM `information_schema`.`key_column_usage` AS `a` INNER JOIN `information_schema`.`table_constraints` AS `b` USING (`constraint_schema`, `constraint_name`, `table_name`) WHERE (`b`.`constraint_type` = 'FOREIGN KEY') AND (`a`.`referenced_table_schema` IS NOT NULL) AND (`a`.`table_name` IN (?, ?)) ORDER BY `a`.`table_name` ASC | pk-table-schema,pk-table-name,pk-column-name,fk-table-schema,fk-table-name,fk-column-name | args=orders,plain

-- @ metabase: mysql.clj set-timezone-sql (when a report time zone is set)
SET @@session.time_zone = 'UTC';

-- Superset (apache/superset superset/db_engine_specs/mysql.py; its inspector
-- calls go through SQLAlchemy's MySQL dialect, replayed above and run for
-- real by tests/catalog/reflect.py).

-- @ superset: mysql.py get_cancel_query_id
SELECT CONNECTION_ID() | CONNECTION_ID() | rows>0

-- @ superset: mysql.py _requires_primary_key (CSV upload)
SELECT @@session.sql_require_primary_key | @@session.sql_require_primary_key | rows>0

-- @ superset: select_star (SQL Lab preview)
SELECT * FROM `{db}`.`plain` LIMIT 100 | id,v

-- @ sqlalchemy: base.py has_table (DESCRIBE; a missing table must be 1146)
DESCRIBE `{db}`.`no_such_table` | error=1146

-- @ sqlalchemy: base.py has_table (a missing schema: 1049, as MySQL 8)
DESCRIBE `no_such_db`.`orders` | error=1049

-- @ sqlalchemy: base.py _fetch_setting (MySQL ≥ 5.6: SELECT @@)
SELECT @@lower_case_table_names | @@lower_case_table_names | rows>0

-- Tableau's MySQL connector runs over MySQL Connector/ODBC: the catalog
-- statements of mysql/mysql-connector-odbc driver/catalog.cc (SQLTables,
-- SQLColumns — a server-side prepared statement —, SQLTablePrivileges) and
-- driver/catalog_no_i_s.cc (SQLPrimaryKeys, SQLStatistics), then Tableau's
-- documented metadata forms (CAP_QUERY_TOP_0_METADATA as LIMIT 0,
-- CAP_QUERY_WHERE_FALSE_METADATA) and its temporary-table probe
-- (CAP_CREATE_TEMP_TABLES), which lakesql refuses as a missing feature.

-- @ tableau/odbc: catalog.cc db_status (SQLTables catalogs)
SELECT NULL, NULL, NULL, SCHEMA_NAME FROM INFORMATION_SCHEMA.SCHEMATA WHERE SCHEMA_NAME LIKE '{db}'  ORDER BY SCHEMA_NAME | NULL,NULL,NULL,SCHEMA_NAME | rows>0

-- @ tableau/odbc: catalog.cc table_status_i_s (SQLTables)
SELECT TABLE_NAME,TABLE_COMMENT,IF(TABLE_TYPE='BASE TABLE', 'TABLE', TABLE_TYPE),TABLE_SCHEMA FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA LIKE '{db}' AND ( TABLE_TYPE='BASE TABLE' OR TABLE_TYPE='VIEW' )  ORDER BY TABLE_SCHEMA, TABLE_NAME | rows>0

-- @ tableau/odbc: catalog.cc columns_i_s (SQLColumns, prepared)
select TABLE_SCHEMA as TABLE_CATALOG,TABLE_SCHEMA,TABLE_NAME,COLUMN_NAME,DATA_TYPE,COLUMN_TYPE as TYPE_NAME,IF(ISNULL(CHARACTER_MAXIMUM_LENGTH), IF(DATA_TYPE LIKE 'bit',CAST((NUMERIC_PRECISION+7)/8 AS UNSIGNED),NUMERIC_PRECISION), CHARACTER_MAXIMUM_LENGTH) as COLUMN_SIZE,CHARACTER_OCTET_LENGTH as BUFFER_LENGTH,NUMERIC_SCALE as DECIMAL_DIGITS,IF(ISNULL(NUMERIC_PRECISION), NULL, 10) as NUM_PREC_RADIX,IF(EXTRA LIKE "%auto_increment%", "YES", IS_NULLABLE) as NULLABLE,COLUMN_COMMENT as REMARKS,IF(ISNULL(COLUMN_DEFAULT), "NULL", IF(ISNULL(NUMERIC_PRECISION), CONCAT("'", COLUMN_DEFAULT, "'"),COLUMN_DEFAULT)) as COLUMN_DEF,0 as SQL_DATA_TYPE,NULL as SQL_DATA_TYPE_SUB,CHARACTER_OCTET_LENGTH as CHAR_OCTET_LENGTH,ORDINAL_POSITION,IF(EXTRA LIKE "%auto_increment%", "YES", IS_NULLABLE) AS IS_NULLABLE,CAST(CHARACTER_OCTET_LENGTH/CHARACTER_MAXIMUM_LENGTH AS SIGNED) AS CHAR_SIZE FROM information_schema.COLUMNS c WHERE 1=1 AND c.TABLE_SCHEMA  LIKE ? AND c.TABLE_NAME LIKE ? ORDER BY ORDINAL_POSITION | rows>0 | args={db},orders

-- @ tableau/odbc: catalog.cc list_table_priv_i_s (SQLTablePrivileges)
SELECT TABLE_SCHEMA as TABLE_CAT, NULL as TABLE_SCHEM,TABLE_NAME, NULL as GRANTOR,GRANTEE,PRIVILEGE_TYPE as PRIVILEGE,IS_GRANTABLE FROM INFORMATION_SCHEMA.TABLE_PRIVILEGES WHERE TABLE_NAME LIKE '%' AND TABLE_SCHEMA=DATABASE() ORDER BY TABLE_CAT, TABLE_SCHEM, TABLE_NAME, PRIVILEGE, GRANTEE | TABLE_CAT,TABLE_SCHEM,TABLE_NAME,GRANTOR,GRANTEE,PRIVILEGE,IS_GRANTABLE

-- @ tableau/odbc: catalog_no_i_s.cc server_list_dbkeys (SQLPrimaryKeys, SQLStatistics)
SHOW KEYS FROM `{db}`.`orders` | rows>0

-- @ tableau: metadata query, CAP_QUERY_TOP_0_METADATA (LIMIT 0 in MySQL)
SELECT * FROM `{db}`.`orders` LIMIT 0 | order_id,dt,amount

-- @ tableau: metadata query, CAP_QUERY_WHERE_FALSE_METADATA
SELECT * FROM `{db}`.`orders` WHERE 1 = 0 | order_id,dt,amount

-- @ tableau: CAP_SET_ISOLATION_LEVEL_VIA_SQL
SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED

-- @ tableau: CAP_CREATE_TEMP_TABLES probe (no temporary tables in Paimon: a clear 1235)
CREATE TEMPORARY TABLE `#Tableau_1_Connect` (`COL` INT) | error=1235

-- MySQL Connector/J (mysql/mysql-connector-j NativeProtocol.configureClientCharacterSet,
-- ConnectionImpl.setAutoCommit/setReadOnly/isReadOnly/setTransactionIsolation),
-- as DBeaver and Metabase run them on connect (useLocalSessionState off).

-- @ connector/j: NativeProtocol.configureClientCharacterSet
SET NAMES utf8mb4

-- @ connector/j: NativeProtocol.configureClientCharacterSet (no characterSetResults)
SET character_set_results = NULL

-- @ connector/j: ConnectionImpl.setAutoCommit
SET autocommit=1

-- @ connector/j: ConnectionImpl.setReadOnly(true) (readOnlyPropagatesToServer)
SET SESSION TRANSACTION READ ONLY

-- @ connector/j: ConnectionImpl.isReadOnly (after setReadOnly(true))
SELECT @@session.transaction_read_only | @@session.transaction_read_only | rows>0

-- @ connector/j: ConnectionImpl.setReadOnly(false)
set session transaction read write

-- @ connector/j: ConnectionImpl.getTransactionIsolation
SELECT @@session.transaction_isolation | @@session.transaction_isolation | rows>0

-- @ connector/j: StatementImpl warnings (SHOW WARNINGS after a statement with warnings)
SHOW WARNINGS | Level,Code,Message

-- @ connector/j: DatabaseMetaDataInformationSchema.getInformationSchemaCollation (used as IS_NULLABLE COLLATE … in getColumns)
SELECT DEFAULT_COLLATION_NAME FROM INFORMATION_SCHEMA.SCHEMATA WHERE SCHEMA_NAME = 'information_schema' | DEFAULT_COLLATION_NAME | rows>0

-- @ connector/j: DatabaseMetaDataInformationSchema.getColumns (its NULLABLE clause, with that collation)
SELECT COLUMN_NAME, CASE WHEN IS_NULLABLE COLLATE utf8mb3_general_ci= 'NO' THEN 0 ELSE CASE WHEN IS_NULLABLE COLLATE utf8mb3_general_ci= 'YES' THEN 1 ELSE 2 END END AS NULLABLE, IF (EXTRA COLLATE utf8mb3_general_ci LIKE '%auto_increment%','YES','NO') AS IS_AUTOINCREMENT FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION | COLUMN_NAME,NULLABLE,IS_AUTOINCREMENT | rows>0 | args={db},orders
