-- == create database (defaults) ==
-- claim: fails if it exists; never retried after a lost connection
CREATE DATABASE "acme_1" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C';
REVOKE ALL ON DATABASE "acme_1" FROM PUBLIC;
-- undo
DROP DATABASE IF EXISTS "acme_1";

-- == create database with a claim mark ==
-- claim: fails if it exists; never retried after a lost connection
CREATE DATABASE "acme_1" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C';
REVOKE ALL ON DATABASE "acme_1" FROM PUBLIC;
-- undo
DROP DATABASE IF EXISTS "acme_1";

-- == alter database ==
-- refused: ImmutableAttribute

-- == drop database ==
DROP DATABASE IF EXISTS "acme_1";

-- == create owner (ALL PRIVILEGES) ==
-- claim: fails if it exists; never retried after a lost connection
CREATE ROLE "acme_app" LOGIN PASSWORD 'SCRAM-SHA-256$4096:MDEyMzQ1Njc4OWFiY2RlZg==$dPnV68SGB4Teee7+aoMQgM6fS4RtAg9J61PnVKC1340=:ObQfpLzTU2K/mjuYL0+Bqup88/0yYN57EOXXDkxRgwk=';
GRANT "acme_app" TO CURRENT_USER;
ALTER DATABASE "acme_1" OWNER TO "acme_app";
-- undo
-- ok if already gone
GRANT "acme_app" TO "tenantdb_admin";
-- in database acme_1
-- ok if already gone
REASSIGN OWNED BY "acme_app" TO "tenantdb_admin";
-- in database acme_1
-- ok if already gone
DROP OWNED BY "acme_app";
DROP ROLE IF EXISTS "acme_app";

-- == create owner (SELECT, DELETE) ==
-- claim: fails if it exists; never retried after a lost connection
CREATE ROLE "acme_app" LOGIN PASSWORD 'SCRAM-SHA-256$4096:MDEyMzQ1Njc4OWFiY2RlZg==$dPnV68SGB4Teee7+aoMQgM6fS4RtAg9J61PnVKC1340=:ObQfpLzTU2K/mjuYL0+Bqup88/0yYN57EOXXDkxRgwk=';
GRANT "acme_app" TO CURRENT_USER;
ALTER DATABASE "acme_1" OWNER TO "acme_app";
-- undo
-- ok if already gone
GRANT "acme_app" TO "tenantdb_admin";
-- in database acme_1
-- ok if already gone
REASSIGN OWNED BY "acme_app" TO "tenantdb_admin";
-- in database acme_1
-- ok if already gone
DROP OWNED BY "acme_app";
DROP ROLE IF EXISTS "acme_app";

-- == set password ==
ALTER ROLE "acme_app" PASSWORD 'SCRAM-SHA-256$4096:MDEyMzQ1Njc4OWFiY2RlZg==$dPnV68SGB4Teee7+aoMQgM6fS4RtAg9J61PnVKC1340=:ObQfpLzTU2K/mjuYL0+Bqup88/0yYN57EOXXDkxRgwk=';

-- == set password, retaining the current one ==
ALTER ROLE "acme_app" PASSWORD 'SCRAM-SHA-256$4096:MDEyMzQ1Njc4OWFiY2RlZg==$dPnV68SGB4Teee7+aoMQgM6fS4RtAg9J61PnVKC1340=:ObQfpLzTU2K/mjuYL0+Bqup88/0yYN57EOXXDkxRgwk=';

-- == discard old password ==

-- == rotate owner: handover ==
-- claim: fails if it exists; never retried after a lost connection
CREATE ROLE "acme_app2" LOGIN PASSWORD 'SCRAM-SHA-256$4096:MDEyMzQ1Njc4OWFiY2RlZg==$dPnV68SGB4Teee7+aoMQgM6fS4RtAg9J61PnVKC1340=:ObQfpLzTU2K/mjuYL0+Bqup88/0yYN57EOXXDkxRgwk=';
GRANT "acme_app2" TO CURRENT_USER;
ALTER DATABASE "acme_1" OWNER TO "acme_app2";
-- in database acme_1
ALTER SCHEMA "app data" OWNER TO "acme_app2";
-- in database acme_1
-- ok if already gone
REASSIGN OWNED BY "acme_app" TO "acme_app2";
-- in database acme_1
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app2" GRANT USAGE ON SCHEMAS TO "reporting_readers_of_""all""_tenants";
-- in database acme_1
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app2" GRANT SELECT ON TABLES TO "reader";
-- in database acme_1
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app2" IN SCHEMA "app data" GRANT USAGE ON SEQUENCES TO "reader";
-- in database acme_1
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app2" IN SCHEMA "app data" GRANT INSERT, SELECT ON TABLES TO "reader";
-- in database acme_1
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app2" REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
-- undo
-- ok if already gone
ALTER DATABASE "acme_1" OWNER TO "acme_app";
-- in database acme_1
-- ok if already gone
REASSIGN OWNED BY "acme_app2" TO "acme_app";
-- in database acme_1
-- ok if already gone
DROP OWNED BY "acme_app2";
DROP ROLE IF EXISTS "acme_app2";

-- == rotate owner: drop old ==
-- ok if already gone
GRANT "acme_app" TO "tenantdb_admin";
-- in database acme_1
-- ok if already gone
REASSIGN OWNED BY "acme_app" TO "tenantdb_admin";
-- in database acme_1
-- ok if already gone
DROP OWNED BY "acme_app";
DROP ROLE IF EXISTS "acme_app";

-- == default privileges handed over ==
-- in database acme_1
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app2" GRANT USAGE ON SCHEMAS TO "reporting_readers_of_""all""_tenants";
-- in database acme_1
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app2" GRANT SELECT ON TABLES TO "reader";
-- in database acme_1
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app2" IN SCHEMA "app data" GRANT USAGE ON SEQUENCES TO "reader";
-- in database acme_1
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app2" IN SCHEMA "app data" GRANT INSERT, SELECT ON TABLES TO "reader";
-- in database acme_1
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app2" REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

-- == default privileges cleared ==
-- in database acme_1
-- ok if already gone
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" REVOKE USAGE ON SCHEMAS FROM "reporting_readers_of_""all""_tenants";
-- in database acme_1
-- ok if already gone
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" REVOKE SELECT ON TABLES FROM "reader";
-- in database acme_1
-- ok if already gone
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" IN SCHEMA "app data" REVOKE USAGE ON SEQUENCES FROM "reader";
-- in database acme_1
-- ok if already gone
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" IN SCHEMA "app data" REVOKE INSERT, SELECT ON TABLES FROM "reader";
-- in database acme_1
-- ok if already gone
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" GRANT EXECUTE ON FUNCTIONS TO PUBLIC;

-- == drop login ==
-- ok if already gone
GRANT "acme_app" TO "tenantdb_admin";
-- in database acme_1
-- ok if already gone
REASSIGN OWNED BY "acme_app" TO "tenantdb_admin";
-- in database acme_1
-- ok if already gone
DROP OWNED BY "acme_app";
DROP ROLE IF EXISTS "acme_app";

-- == offboard: lock the login out ==
-- ok if already gone
ALTER ROLE "acme_app" NOLOGIN;
SELECT pg_catalog.pg_terminate_backend(a.pid) FROM pg_catalog.pg_stat_activity a WHERE a.usename = 'acme_app' AND a.pid <> pg_catalog.pg_backend_pid() AND pg_catalog.pg_has_role(a.usesysid, 'USAGE');

-- == offboard: create the keeper ==
CREATE ROLE "tenantdb_claim_k05e5c537d1cf52fc" NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
GRANT "tenantdb_claim_k05e5c537d1cf52fc" TO CURRENT_USER;

-- == offboard: hand owned to the keeper ==
-- ok if already gone
GRANT "acme_app" TO CURRENT_USER;
ALTER DATABASE "acme_1" OWNER TO "tenantdb_claim_k05e5c537d1cf52fc";
-- in database acme_1
ALTER SCHEMA "app data" OWNER TO "tenantdb_claim_k05e5c537d1cf52fc";
-- in database acme_1
-- ok if already gone
REASSIGN OWNED BY "acme_app" TO "tenantdb_claim_k05e5c537d1cf52fc";

-- == re-onboard: the keeper hands to the new owner ==
GRANT CREATE ON DATABASE "acme_1" TO "acme_app2";
-- in database acme_1
ALTER SCHEMA "app data" OWNER TO "acme_app2";
-- in database acme_1
-- ok if already gone
REASSIGN OWNED BY "tenantdb_claim_k05e5c537d1cf52fc" TO "acme_app2";
REVOKE CREATE ON DATABASE "acme_1" FROM "acme_app2";
-- in database acme_1
DROP OWNED BY "tenantdb_claim_k05e5c537d1cf52fc";
DROP ROLE "tenantdb_claim_k05e5c537d1cf52fc";

-- == offboard: revoke what the tenant granted onward ==
-- ok if already gone
REVOKE ALL ON DATABASE "acme_1" FROM PUBLIC CASCADE;
-- ok if already gone
REVOKE ALL ON DATABASE "acme_1" FROM "bob" CASCADE;
-- in database acme_1
-- ok if already gone
REVOKE CREATE ON SCHEMA "public" FROM PUBLIC CASCADE;
-- in database acme_1
-- ok if already gone
REVOKE ALL ON SCHEMA "app data" FROM PUBLIC CASCADE;
-- in database acme_1
-- ok if already gone
REVOKE ALL ON ALL TABLES IN SCHEMA "public" FROM PUBLIC CASCADE;
-- in database acme_1
-- ok if already gone
REVOKE ALL ON ALL TABLES IN SCHEMA "public" FROM "bob" CASCADE;
-- in database acme_1
-- ok if already gone
REVOKE GRANT OPTION FOR ALL ON ALL TABLES IN SCHEMA "public" FROM "carol" CASCADE;
-- in database acme_1
-- ok if already gone
REVOKE ALL ON ALL SEQUENCES IN SCHEMA "public" FROM "bob" CASCADE;
-- in database acme_1
-- ok if already gone
REVOKE ALL ON ALL ROUTINES IN SCHEMA "public" FROM "bob" CASCADE;
-- in database acme_1
-- ok if already gone
REVOKE ALL ON TYPE "public"."mood ""x""" FROM "bob" CASCADE;
-- in database acme_1
-- ok if already gone
REVOKE ALL ON DOMAIN "public"."posint" FROM "bob" CASCADE;
-- in database acme_1
-- ok if already gone
REVOKE ALL ON LARGE OBJECT 4242042 FROM "bob" CASCADE;

-- == offboard: drop owned, drop the login ==
-- in database acme_1
-- ok if already gone
DROP OWNED BY "acme_app";
DROP ROLE IF EXISTS "acme_app";

-- == grant: fresh SELECT, DELETE ==
GRANT CONNECT ON DATABASE "acme_1" TO "maester";
-- in database acme_1
GRANT USAGE ON SCHEMA public TO "maester";
-- in database acme_1
GRANT DELETE, SELECT ON ALL TABLES IN SCHEMA public TO "maester";
-- in database acme_1
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" IN SCHEMA public GRANT DELETE, SELECT ON TABLES TO "maester";

-- == grant: fresh ALL ==
GRANT ALL PRIVILEGES ON DATABASE "acme_1" TO "maester";
-- in database acme_1
GRANT USAGE ON SCHEMA public TO "maester";
-- in database acme_1
GRANT ALL PRIVILEGES ON ALL TABLES IN SCHEMA public TO "maester";
-- in database acme_1
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" IN SCHEMA public GRANT ALL PRIVILEGES ON TABLES TO "maester";

-- == grant: narrow ALL to SELECT, DELETE ==
REVOKE CREATE, TEMPORARY ON DATABASE "acme_1" FROM "maester";
-- in database acme_1
REVOKE INSERT, REFERENCES, TRIGGER, TRUNCATE, UPDATE ON ALL TABLES IN SCHEMA public FROM "maester";
-- in database acme_1
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" IN SCHEMA public REVOKE INSERT, REFERENCES, TRIGGER, TRUNCATE, UPDATE ON TABLES FROM "maester";

-- == grant: swap INSERT for DELETE ==
GRANT CONNECT ON DATABASE "acme_1" TO "maester";
-- in database acme_1
GRANT USAGE ON SCHEMA public TO "maester";
-- in database acme_1
GRANT DELETE ON ALL TABLES IN SCHEMA public TO "maester";
-- in database acme_1
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" IN SCHEMA public GRANT DELETE ON TABLES TO "maester";
-- in database acme_1
REVOKE INSERT ON ALL TABLES IN SCHEMA public FROM "maester";
-- in database acme_1
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" IN SCHEMA public REVOKE INSERT ON TABLES FROM "maester";

-- == grant: revoke all ==
-- in database acme_1
-- ok if already gone
ALTER DEFAULT PRIVILEGES FOR ROLE "acme_app" IN SCHEMA public REVOKE ALL ON TABLES FROM "maester";
-- in database acme_1
-- ok if already gone
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM "maester";
-- in database acme_1
-- ok if already gone
REVOKE ALL ON SCHEMA public FROM "maester";
-- ok if already gone
REVOKE ALL ON DATABASE "acme_1" FROM "maester";

-- == admin rights: statements that grant them ==
ALTER ROLE "tenantdb_admin" CREATEDB CREATEROLE;
