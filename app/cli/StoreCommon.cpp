#include "StoreCommon.h"


namespace cli {

Json entryJson(const cs::store::EntryRow& e)
{
    using cs::store::EntryState;
    Json o = Json::object();
    o["id"] = e.id;
    o["key"] = e.key;
    o["version"] = e.version;
    o["scope"] = e.scope;
    o["size"] = e.size;
    o["sha256"] = e.sha256;
    o["state"] = cs::store::entryStateName(e.state);
    o["parts"] = e.partCount;
    o["root_offset"] = e.state == EntryState::Merged ? Json(e.rootOffset) : Json();
    o["created"] = e.created > 0 ? Json(e.created) : Json();
    o["last_access"] = e.lastAccess > 0 ? Json(e.lastAccess) : Json();
    o["synthetic"] = e.synthetic;
    o["repo"] = e.repo;
    o["origin"] = e.origin.empty() ? Json() : Json(e.origin);
    o["merge_error"] = e.mergeError.empty() ? Json() : Json(e.mergeError);
    return o;
}

void addVersionScope(CLI::App* c, std::string& version, std::string& scope)
{
    c->add_option("--version", version, "Entry version (Actions cache 'version'; default '')")->type_name("V");
    c->add_option("--scope", scope, "Entry scope, e.g. a branch ref (default '')")->type_name("S");
}

} // namespace cli
