-- == create database (defaults) ==
-- claim: fails if it exists; never retried after a lost connection
CREATE DATABASE `acme_1` CHARACTER SET `utf8mb4` COLLATE `utf8mb4_unicode_ci`;

-- == create database with a claim mark ==
-- claim: fails if it exists; never retried after a lost connection
CREATE DATABASE `acme_1` CHARACTER SET `utf8mb4`;

-- == alter database ==
ALTER DATABASE `acme_1` CHARACTER SET `utf8mb4` COLLATE `utf8mb4_unicode_ci`;

-- == drop database ==
DROP DATABASE IF EXISTS `acme_1`;

-- == create owner (ALL PRIVILEGES) ==
-- claim: fails if it exists; never retried after a lost connection
CREATE USER 'acme_app'@'%' IDENTIFIED BY 'p''a\ss"wö`rd''''\''%_?' WITH MAX_UPDATES_PER_HOUR 4084302067;
GRANT ALL PRIVILEGES ON `acme_1`.* TO 'acme_app'@'%';
-- undo
DROP USER IF EXISTS 'acme_app'@'%';

-- == create owner (SELECT, DELETE) ==
-- claim: fails if it exists; never retried after a lost connection
CREATE USER 'acme_app'@'%' IDENTIFIED BY 'p''a\ss"wö`rd''''\''%_?' WITH MAX_UPDATES_PER_HOUR 4084302067;
GRANT DELETE, SELECT ON `acme_1`.* TO 'acme_app'@'%';
-- undo
DROP USER IF EXISTS 'acme_app'@'%';

-- == set password ==
ALTER USER 'acme_app'@'%' IDENTIFIED BY 'p''a\ss"wö`rd''''\''%_?';

-- == set password, retaining the current one ==
ALTER USER 'acme_app'@'%' IDENTIFIED BY 'p''a\ss"wö`rd''''\''%_?' RETAIN CURRENT PASSWORD;

-- == discard old password ==
ALTER USER 'acme_app'@'%' DISCARD OLD PASSWORD;

-- == rotate owner: handover ==
-- claim: fails if it exists; never retried after a lost connection
CREATE USER 'acme_app2'@'%' IDENTIFIED BY 'p''a\ss"wö`rd''''\''%_?' WITH MAX_UPDATES_PER_HOUR 4084302067;
GRANT ALL PRIVILEGES ON `acme_1`.* TO 'acme_app2'@'%';
-- undo
DROP USER IF EXISTS 'acme_app2'@'%';

-- == rotate owner: drop old ==
DROP USER IF EXISTS 'acme_app'@'%';

-- == drop login ==
DROP USER IF EXISTS 'acme_app'@'%';

-- == grant: fresh SELECT, DELETE ==
GRANT DELETE, SELECT ON `acme_1`.* TO 'maester'@'%';

-- == grant: fresh ALL ==
GRANT ALL PRIVILEGES ON `acme_1`.* TO 'maester'@'%';

-- == grant: narrow ALL to SELECT, DELETE ==
REVOKE ALTER, ALTER ROUTINE, CREATE, CREATE ROUTINE, CREATE TEMPORARY TABLES, CREATE VIEW, DROP, EVENT, EXECUTE, INDEX, INSERT, LOCK TABLES, REFERENCES, SHOW VIEW, TRIGGER, UPDATE ON `acme_1`.* FROM 'maester'@'%';

-- == grant: swap INSERT for DELETE ==
GRANT DELETE ON `acme_1`.* TO 'maester'@'%';
REVOKE INSERT ON `acme_1`.* FROM 'maester'@'%';

-- == grant: revoke all ==
REVOKE IF EXISTS ALL PRIVILEGES ON `acme_1`.* FROM 'maester'@'%' IGNORE UNKNOWN USER;
REVOKE IF EXISTS GRANT OPTION ON `acme_1`.* FROM 'maester'@'%' IGNORE UNKNOWN USER;

-- == admin rights: statements that grant them ==
GRANT CREATE, DROP, CREATE USER ON *.* TO 'tenantdb_admin'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, REFERENCES, INDEX, ALTER, CREATE TEMPORARY TABLES, LOCK TABLES, CREATE VIEW, SHOW VIEW, CREATE ROUTINE, ALTER ROUTINE, EXECUTE, EVENT, TRIGGER ON *.* TO 'tenantdb_admin'@'%' WITH GRANT OPTION;
