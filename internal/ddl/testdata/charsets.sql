-- == mysql-8.0.36: character_set "latin1", collation "" ==
CREATE DATABASE `acme_1` CHARACTER SET `latin1`;
ALTER DATABASE `acme_1` CHARACTER SET `latin1`;

-- == mysql-8.0.36: character_set "", collation "utf8mb4_bin" ==
CREATE DATABASE `acme_1` COLLATE `utf8mb4_bin`;
ALTER DATABASE `acme_1` COLLATE `utf8mb4_bin`;

-- == mysql-8.0.36: character_set "UTF8MB4", collation "UTF8MB4_UNICODE_CI" ==
CREATE DATABASE `acme_1` CHARACTER SET `UTF8MB4` COLLATE `UTF8MB4_UNICODE_CI`;
ALTER DATABASE `acme_1` CHARACTER SET `UTF8MB4` COLLATE `UTF8MB4_UNICODE_CI`;

-- == mysql-8.0.36: character_set "utf8", collation "utf8_general_ci" ==
CREATE DATABASE `acme_1` CHARACTER SET `utf8` COLLATE `utf8_general_ci`;
ALTER DATABASE `acme_1` CHARACTER SET `utf8` COLLATE `utf8_general_ci`;

-- == mysql-8.0.36: character_set "utf8mb4", collation "utf8mb4_0900_ai_ci" ==
CREATE DATABASE `acme_1` CHARACTER SET `utf8mb4` COLLATE `utf8mb4_0900_ai_ci`;
ALTER DATABASE `acme_1` CHARACTER SET `utf8mb4` COLLATE `utf8mb4_0900_ai_ci`;

-- == mysql-8.0.36: character_set "", collation "" ==
CREATE DATABASE `acme_1`;
-- alter: nothing to run

-- == mariadb-10.11.6: character_set "latin1", collation "" ==
CREATE DATABASE `acme_1` CHARACTER SET `latin1`;
ALTER DATABASE `acme_1` CHARACTER SET `latin1`;

-- == mariadb-10.11.6: character_set "", collation "utf8mb4_bin" ==
CREATE DATABASE `acme_1` COLLATE `utf8mb4_bin`;
ALTER DATABASE `acme_1` COLLATE `utf8mb4_bin`;

-- == mariadb-10.11.6: character_set "UTF8MB4", collation "UTF8MB4_UNICODE_CI" ==
CREATE DATABASE `acme_1` CHARACTER SET `UTF8MB4` COLLATE `UTF8MB4_UNICODE_CI`;
ALTER DATABASE `acme_1` CHARACTER SET `UTF8MB4` COLLATE `UTF8MB4_UNICODE_CI`;

-- == mariadb-10.11.6: character_set "utf8", collation "utf8_general_ci" ==
CREATE DATABASE `acme_1` CHARACTER SET `utf8` COLLATE `utf8_general_ci`;
ALTER DATABASE `acme_1` CHARACTER SET `utf8` COLLATE `utf8_general_ci`;

-- == mariadb-10.11.6: character_set "utf8mb4", collation "uca1400_ai_ci" ==
CREATE DATABASE `acme_1` CHARACTER SET `utf8mb4` COLLATE `uca1400_ai_ci`;
ALTER DATABASE `acme_1` CHARACTER SET `utf8mb4` COLLATE `uca1400_ai_ci`;

-- == mariadb-10.11.6: character_set "", collation "" ==
CREATE DATABASE `acme_1`;
-- alter: nothing to run

-- == postgres-15.18: character_set "LATIN1", collation "" ==
CREATE DATABASE "acme_1" TEMPLATE template0 ENCODING 'LATIN1' LOCALE 'C';
-- alter refused: ImmutableAttribute

-- == postgres-15.18: character_set "utf-8", collation "" ==
CREATE DATABASE "acme_1" TEMPLATE template0 ENCODING 'utf-8' LOCALE 'C';
-- alter refused: ImmutableAttribute

-- == postgres-15.18: character_set "", collation "C.UTF-8" ==
CREATE DATABASE "acme_1" TEMPLATE template0 LOCALE 'C.UTF-8';
-- alter refused: ImmutableAttribute

-- == postgres-15.18: character_set "UTF8", collation "en_US.utf8" ==
CREATE DATABASE "acme_1" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'en_US.utf8';
-- alter refused: ImmutableAttribute

-- == postgres-15.18: character_set "LATIN9", collation "de_DE@euro" ==
CREATE DATABASE "acme_1" TEMPLATE template0 ENCODING 'LATIN9' LOCALE 'de_DE@euro';
-- alter refused: ImmutableAttribute

-- == postgres-15.18: character_set "UTF8", collation "POSIX" ==
CREATE DATABASE "acme_1" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'POSIX';
-- alter refused: ImmutableAttribute

-- == postgres-15.18: character_set "", collation "" ==
CREATE DATABASE "acme_1" TEMPLATE template0;
-- alter refused: ImmutableAttribute

