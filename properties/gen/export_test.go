package gen

// BriefName is briefName, for the tests of package gen_test.
var BriefName = briefName
